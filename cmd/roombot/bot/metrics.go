package bot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	neturl "net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// serverSample is what roombot reads of the server's Prometheus metrics at
// one edge of the measured window: its CPU, and the ticks of the played
// game's real-time rooms (zero for other games).
type serverSample struct {
	cpu      float64
	hasCPU   bool
	ticksRun float64 // roomd_tick_duration_seconds_count: ticks the rooms ran
	tickSecs float64 // roomd_tick_duration_seconds_sum
	skipped  float64 // roomd_ticks_skipped_total
	lateness []bucket
}

// bucket is one cumulative histogram bucket: observations <= le.
type bucket struct {
	le    float64
	count float64
}

// Metric names read.
const (
	metricCPU      = "process_cpu_seconds_total"
	metricTickTime = "roomd_tick_duration_seconds"
	metricTickLate = "roomd_tick_lateness_seconds"
	metricSkipped  = "roomd_ticks_skipped_total"
)

// scrapeServer reads a Prometheus text endpoint: the process's CPU, and
// the tick metrics whose game label is game.
func scrapeServer(ctx context.Context, client *http.Client, url, game string) (serverSample, error) {
	var s serverSample
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return s, err
	}
	resp, err := client.Do(req)
	if ue := (*neturl.Error)(nil); errors.As(err, &ue) {
		return s, ue.Err // without the URL: reports must not carry links
	}
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("the metrics endpoint answered %d", resp.StatusCode)
	}
	return parseMetrics(resp.Body, game)
}

// scrapeServers reads every endpoint (one per node of a service) and adds
// their samples up: the service's CPU, its rooms' ticks. One that cannot be
// read makes the whole reading n/a: a sum without it would look complete.
func scrapeServers(ctx context.Context, client *http.Client, urls []string, game string) (serverSample, error) {
	var sum serverSample
	for i, u := range urls {
		s, err := scrapeServer(ctx, client, u, game)
		if err != nil {
			if len(urls) > 1 {
				err = fmt.Errorf("node %d: %w", i+1, err)
			}
			return serverSample{}, err
		}
		sum.add(s)
	}
	return sum, nil
}

// add adds o's counters to s, the lateness buckets bound by bound.
func (s *serverSample) add(o serverSample) {
	s.cpu += o.cpu
	s.hasCPU = s.hasCPU || o.hasCPU
	s.ticksRun += o.ticksRun
	s.tickSecs += o.tickSecs
	s.skipped += o.skipped
	for _, b := range o.lateness {
		i := slices.IndexFunc(s.lateness, func(a bucket) bool { return a.le == b.le })
		if i < 0 {
			s.lateness = append(s.lateness, b)
			continue
		}
		s.lateness[i].count += b.count
	}
	slices.SortFunc(s.lateness, func(a, b bucket) int { return compareFloat(a.le, b.le) })
}

// parseMetrics reads the samples scrapeServer wants from a text page.
func parseMetrics(r io.Reader, game string) (serverSample, error) {
	var s serverSample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, labels, value, ok := parseSample(sc.Text())
		if !ok {
			continue
		}
		if name == metricCPU {
			s.cpu, s.hasCPU = value, true
			continue
		}
		if labels["game"] != game {
			continue
		}
		switch name {
		case metricTickTime + "_count":
			s.ticksRun += value
		case metricTickTime + "_sum":
			s.tickSecs += value
		case metricSkipped:
			s.skipped += value
		case metricTickLate + "_bucket":
			le, err := strconv.ParseFloat(labels["le"], 64)
			if err == nil {
				s.lateness = append(s.lateness, bucket{le, value})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	if !s.hasCPU {
		return s, errors.New("the metrics endpoint has no " + metricCPU)
	}
	slices.SortFunc(s.lateness, func(a, b bucket) int { return compareFloat(a.le, b.le) })
	return s, nil
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parseSample reads one sample line of the text format: name, labels,
// value (an optional timestamp follows). ok is false for comments, blank
// lines and lines it cannot read.
func parseSample(line string) (name string, labels map[string]string, value float64, ok bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", nil, 0, false
	}
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return "", nil, 0, false
	}
	name, rest := line[:i], line[i:]
	if rest[0] == '{' {
		labels = map[string]string{}
		j := 1
		for j < len(rest) && rest[j] != '}' {
			eq := strings.IndexByte(rest[j:], '=')
			if eq < 0 || j+eq+1 >= len(rest) || rest[j+eq+1] != '"' {
				return "", nil, 0, false
			}
			key := strings.TrimSpace(rest[j : j+eq])
			j += eq + 2
			var val strings.Builder
			for j < len(rest) && rest[j] != '"' {
				if rest[j] == '\\' && j+1 < len(rest) {
					j++
					switch rest[j] {
					case 'n':
						val.WriteByte('\n')
					default:
						val.WriteByte(rest[j])
					}
				} else {
					val.WriteByte(rest[j])
				}
				j++
			}
			if j >= len(rest) {
				return "", nil, 0, false
			}
			labels[key] = val.String()
			j++ // the closing quote
			if j < len(rest) && rest[j] == ',' {
				j++
			}
		}
		if j >= len(rest) {
			return "", nil, 0, false
		}
		rest = rest[j+1:]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", nil, 0, false
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	return name, labels, v, err == nil
}

// histQuantile is q (0 to 1) of the observations between two readings of
// a cumulative histogram, as Prometheus's histogram_quantile reads it:
// linear within the bucket it falls in, from the bucket below's bound (0
// for the first). One that falls in the +Inf bucket is the largest finite
// bound, and above reports so. ok is false when nothing was observed.
func histQuantile(start, end []bucket, q float64) (v float64, above, ok bool) {
	delta := make([]bucket, 0, len(end))
	for _, b := range end {
		c := b.count
		for _, a := range start {
			if a.le == b.le {
				c -= a.count
			}
		}
		delta = append(delta, bucket{b.le, c})
	}
	if len(delta) == 0 || delta[len(delta)-1].count <= 0 {
		return 0, false, false
	}
	total := delta[len(delta)-1].count
	rank := q * total
	lo, below := 0.0, 0.0
	for _, b := range delta {
		if b.count >= rank {
			if math.IsInf(b.le, 1) {
				return lo, true, true
			}
			if b.count == below {
				return b.le, false, true
			}
			return lo + (b.le-lo)*(rank-below)/(b.count-below), false, true
		}
		lo, below = b.le, b.count
	}
	return lo, true, true
}
