// Package httpjson writes roomd's JSON answers: a value, or {"error": "words"}.
package httpjson

import (
	"encoding/json"
	"net/http"
)

// Write answers with v as JSON and status; answers are never cached.
func Write(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Error answers {"error": msg} with status.
func Error(w http.ResponseWriter, status int, msg string) {
	Write(w, status, struct {
		Error string `json:"error"`
	}{msg})
}
