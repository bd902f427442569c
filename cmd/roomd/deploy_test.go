package main

import (
	"bytes"
	"net"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// helpText is `roomd -h`.
func helpText(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	parseServe([]string{"-h"}, &b)
	return b.String()
}

var envRef = regexp.MustCompile(`ROOMD_[A-Z_]+`)

func checkEnv(t *testing.T, file string, names []string, help string) {
	t.Helper()
	if len(names) == 0 {
		t.Fatalf("%s sets no ROOMD_ variable", file)
	}
	for _, n := range names {
		if !strings.Contains(help, "(env "+n+")") {
			t.Errorf("%s sets %s, which `roomd -h` does not document", file, n)
		}
	}
}

func portOf(t *testing.T, addr string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("address %q: %v", addr, err)
	}
	return port
}

func readYAMLDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []map[string]any
	for {
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
	return docs
}

// dig walks a decoded YAML document by keys and list indexes.
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not a map at %q", path, k)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no item %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}

func TestDeployFilesAgreeWithFlags(t *testing.T) {
	help := helpText(t)
	defaultShutdown := 20 * time.Second

	// Kubernetes.
	var deploy map[string]any
	for _, d := range readYAMLDocs(t, "../../deploy/k8s/roomd.yaml") {
		if d["kind"] == "Deployment" {
			deploy = d
		}
	}
	if deploy == nil {
		t.Fatal("no Deployment in deploy/k8s/roomd.yaml")
	}
	spec := dig(t, deploy, "spec", "template", "spec")
	c := dig(t, spec, "containers", 0)
	env := map[string]string{}
	var names []string
	for _, e := range dig(t, c, "env").([]any) {
		m := e.(map[string]any)
		name := m["name"].(string)
		names = append(names, name)
		if v, ok := m["value"].(string); ok {
			env[name] = v
		}
	}
	checkEnv(t, "k8s", names, help)
	port := portOf(t, env["ROOMD_ADDR"])
	if got := dig(t, c, "ports", 0, "containerPort"); got != mustAtoi(t, port) {
		t.Errorf("k8s containerPort %v, ROOMD_ADDR port %s", got, port)
	}
	for probe, path := range map[string]string{"readinessProbe": "/readyz", "livenessProbe": "/healthz"} {
		if got := dig(t, c, probe, "httpGet", "path"); got != path {
			t.Errorf("k8s %s path %v, want %s", probe, got, path)
		}
		if got := dig(t, c, probe, "httpGet", "port"); got != "http" && got != mustAtoi(t, port) {
			t.Errorf("k8s %s port %v", probe, got)
		}
	}
	shutdown, err := time.ParseDuration(env["ROOMD_SHUTDOWN_TIMEOUT"])
	if err != nil {
		shutdown = defaultShutdown
	}
	preStop := time.Duration(dig(t, c, "lifecycle", "preStop", "sleep", "seconds").(int)) * time.Second
	grace := time.Duration(dig(t, spec, "terminationGracePeriodSeconds").(int)) * time.Second
	if grace <= shutdown+preStop {
		t.Errorf("terminationGracePeriodSeconds %v does not cover preStop %v + shutdown %v", grace, preStop, shutdown)
	}
	var service string
	for _, d := range readYAMLDocs(t, "../../deploy/k8s/roomd.yaml") {
		if d["kind"] == "Service" {
			service, _ = dig(t, d, "metadata", "name").(string)
		}
	}
	if !slices.Contains(strings.Split(env["ROOMD_PUBLIC_HOST"], ","), service) {
		t.Errorf("k8s ROOMD_PUBLIC_HOST %q does not list the Service's name %q: in-cluster clients would get 421", env["ROOMD_PUBLIC_HOST"], service)
	}
	if !strings.HasPrefix(env["ROOMD_REDIS_URL"], "redis://") {
		t.Errorf("k8s ROOMD_REDIS_URL %q", env["ROOMD_REDIS_URL"])
	}
	var hasRedis bool
	for _, d := range readYAMLDocs(t, "../../deploy/k8s/redis.yaml") {
		if d["kind"] == "StatefulSet" {
			args := strings.Join(toStrings(dig(t, d, "spec", "template", "spec", "containers", 0, "args")), " ")
			hasRedis = strings.Contains(args, "--appendonly yes")
		}
	}
	if !hasRedis {
		t.Error("deploy/k8s/redis.yaml: no Redis StatefulSet with --appendonly yes")
	}

	// docker compose.
	compose := readYAMLDocs(t, "../../deploy/docker-compose.yml")[0]
	rd := dig(t, compose, "services", "roomd").(map[string]any)
	cenv := map[string]string{}
	names = nil
	for k, v := range rd["environment"].(map[string]any) {
		cenv[k] = v.(string)
		names = append(names, k)
	}
	checkEnv(t, "docker-compose", names, help)
	cport := portOf(t, cenv["ROOMD_ADDR"])
	if got := dig(t, rd, "ports", 0).(string); !strings.HasSuffix(got, ":"+cport) {
		t.Errorf("compose publishes %s, roomd listens on %s", got, cport)
	}
	if !slices.Contains(strings.Split(cenv["ROOMD_PUBLIC_HOST"], ","), "roomd") {
		t.Errorf("compose ROOMD_PUBLIC_HOST %q does not list the service's name roomd: other containers would get 421", cenv["ROOMD_PUBLIC_HOST"])
	}
	stop, _ := time.ParseDuration(rd["stop_grace_period"].(string))
	cshut, _ := time.ParseDuration(cenv["ROOMD_SHUTDOWN_TIMEOUT"])
	if stop <= cshut {
		t.Errorf("compose stop_grace_period %v does not cover the shutdown timeout %v", stop, cshut)
	}
	redisCmd := strings.Join(toStrings(dig(t, compose, "services", "redis", "command")), " ")
	if !strings.Contains(redisCmd, "--appendonly yes") {
		t.Errorf("compose Redis without AOF: %s", redisCmd)
	}
	if hc := strings.Join(toStrings(dig(t, rd, "healthcheck", "test")), " "); !strings.Contains(hc, "probe") || !strings.Contains(hc, ":"+cport+"/readyz") {
		t.Errorf("compose healthcheck %q does not probe /readyz on %s", hc, cport)
	}

	// Dockerfile.
	df, err := os.ReadFile("../../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := string(df)
	if n := strings.Count(text, "\nFROM "); n < 2 && !strings.HasPrefix(text, "FROM ") {
		t.Error("Dockerfile is not multi-stage")
	}
	for _, want := range []string{"CGO_ENABLED=0", "USER 65532", "EXPOSE " + cport} {
		if !strings.Contains(text, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	checkEnv(t, "Dockerfile", envRef.FindAllString(text, -1), help)
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("not a port: %q", s)
		}
		n = n*10 + int(r-'0')
	}
	return n
}

func TestProbeCommand(t *testing.T) {
	if code := probeMain([]string{"http://127.0.0.1:1/readyz"}, &bytes.Buffer{}); code != 1 {
		t.Fatalf("probe of a closed port exited %d", code)
	}
}
