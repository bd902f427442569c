package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"time"
)

// scrapeCPU reads process_cpu_seconds_total from a Prometheus text
// endpoint.
func scrapeCPU(ctx context.Context, client *http.Client, url string) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if ue := (*neturl.Error)(nil); errors.As(err, &ue) {
		return 0, ue.Err // without the URL: reports must not carry links
	}
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("the metrics endpoint answered %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		name, value, ok := strings.Cut(line, " ")
		if !ok || (name != "process_cpu_seconds_total" && !strings.HasPrefix(name, "process_cpu_seconds_total{")) {
			continue
		}
		value, _, _ = strings.Cut(strings.TrimSpace(value), " ") // an optional timestamp follows
		return strconv.ParseFloat(value, 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("the metrics endpoint has no process_cpu_seconds_total")
}
