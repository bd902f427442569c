package bot

import (
	"fmt"
	"html"
	"maps"
	"math"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The HTML report is one self-contained file: inline CSS and inline SVG
// drawn here, no script and no external request.

type chartSeries struct {
	name  string
	color string
	ys    []float64
}

const (
	chartW, chartH         = 760, 250
	padL, padR, padT, padB = 64, 16, 28, 36
)

// niceTicks returns about n round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step/1e9; v += step {
		out = append(out, v)
	}
	return out
}

func fmtNum(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 1000:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// lineChart draws series over xs. With logY the y axis is log10 (values
// <= 0 are left out).
func lineChart(title, xLabel, yLabel string, xs []float64, series []chartSeries, logY bool, xTick func(float64) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<figure><figcaption>%s</figcaption><svg viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		html.EscapeString(title), chartW, chartH, chartW, chartH, html.EscapeString(title))
	if len(xs) == 0 {
		b.WriteString(`<text x="20" y="40">no data</text></svg></figure>`)
		return b.String()
	}
	xmin, xmax := xs[0], xs[len(xs)-1]
	if xmax <= xmin {
		xmax = xmin + 1
	}
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, y := range s.ys {
			if logY && y <= 0 {
				continue
			}
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 0, 1
	}
	tf := func(y float64) float64 { return y }
	if logY {
		tf = math.Log10
		ymin = math.Pow(10, math.Floor(math.Log10(ymin)))
		ymax = math.Pow(10, math.Ceil(math.Log10(ymax)))
		if ymax <= ymin {
			ymax = ymin * 10
		}
	} else {
		ymin = math.Min(0, ymin)
		if ymax <= ymin {
			ymax = ymin + 1
		}
		ymax *= 1.05
	}
	pw, ph := float64(chartW-padL-padR), float64(chartH-padT-padB)
	px := func(x float64) float64 { return padL + (x-xmin)/(xmax-xmin)*pw }
	py := func(y float64) float64 { return padT + ph - (tf(y)-tf(ymin))/(tf(ymax)-tf(ymin))*ph }
	// Grid and axes.
	var yt []float64
	if logY {
		for v := ymin; v <= ymax*1.0001; v *= 10 {
			yt = append(yt, v)
		}
	} else {
		yt = niceTicks(ymin, ymax, 5)
	}
	for _, v := range yt {
		y := py(v)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/><text x="%d" y="%.1f" class="yt">%s</text>`,
			padL, chartW-padR, y, y, padL-6, y+4, fmtNum(v))
	}
	for _, v := range niceTicks(xmin, xmax, 8) {
		x := px(v)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" class="grid"/><text x="%.1f" y="%d" class="xt">%s</text>`,
			x, x, padT, chartH-padB, x, chartH-padB+16, html.EscapeString(xTick(v)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="xl">%s</text><text x="14" y="%d" class="yl" transform="rotate(-90 14 %d)">%s</text>`,
		padL+int(pw/2), chartH-4, html.EscapeString(xLabel), padT+int(ph/2), padT+int(ph/2), html.EscapeString(yLabel))
	// Lines.
	for _, s := range series {
		var pts []string
		for i, y := range s.ys {
			if i >= len(xs) || (logY && y <= 0) {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(xs[i]), py(y)))
		}
		if len(pts) > 0 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.6" points="%s"/>`, s.color, strings.Join(pts, " "))
		}
	}
	// Legend.
	lx := padL + 8
	for _, s := range series {
		fmt.Fprintf(&b, `<rect x="%d" y="8" width="12" height="3" fill="%s"/><text x="%d" y="13" class="lg">%s</text>`,
			lx, s.color, lx+16, html.EscapeString(s.name))
		lx += 24 + 8*len(s.name)
	}
	b.WriteString(`</svg></figure>`)
	return b.String()
}

func seconds(v float64) string { return fmt.Sprintf("%.0fs", v) }

// percentileChart is the HDR plot: latency by percentile, the x axis being
// log10(1/(1-p)), so 90%, 99%, 99.9% are evenly spaced.
func percentileChart(title string, sums map[string]latencySummary, kinds []string) string {
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"}
	var xs []float64
	var series []chartSeries
	maxLen := 0
	for _, k := range kinds {
		maxLen = max(maxLen, len(sums[k].Percentiles))
	}
	for i := range maxLen {
		for _, k := range kinds {
			if p := sums[k].Percentiles; len(p) == maxLen {
				q := math.Min(p[i].Percentile, 99.9999)
				xs = append(xs, math.Log10(100/(100-q)))
				break
			}
		}
	}
	for i, k := range kinds {
		p := sums[k].Percentiles
		if len(p) != maxLen || maxLen == 0 {
			continue
		}
		ys := make([]float64, len(p))
		for j, pt := range p {
			ys[j] = pt.Ms
		}
		series = append(series, chartSeries{k, colors[i%len(colors)], ys})
	}
	tick := func(x float64) string {
		q := 100 - 100/math.Pow(10, x)
		return strconv.FormatFloat(math.Round(q*1e4)/1e4, 'f', -1, 64) + "%"
	}
	return lineChart(title, "percentile", "ms", xs, series, true, tick)
}

func writeHTML(path string, res *result) error {
	var b strings.Builder
	title := "roombot report"
	if res.Label != "" {
		title += ": " + res.Label
	}
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title><style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:820px;color:#222}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right}
th:first-child,td:first-child{text-align:left}
figure{margin:16px 0}figcaption{font-weight:600;margin-bottom:4px}
svg{background:#fafafa;border:1px solid #e4e4e4}
.grid{stroke:#e2e2e2;stroke-width:1}.yt{font-size:10px;text-anchor:end;fill:#555}.xt{font-size:10px;text-anchor:middle;fill:#555}
.xl,.yl{font-size:11px;text-anchor:middle;fill:#333}.lg{font-size:11px;fill:#333}
.bad{color:#b00020;font-weight:600}.ok{color:#1b7f3b;font-weight:600}pre{white-space:pre-wrap;font-size:12px;background:#f4f4f4;padding:8px}
</style></head><body>`, html.EscapeString(title))
	fmt.Fprintf(&b, "<h1>%s</h1>", html.EscapeString(title))
	s := res.Scenario
	what := s.Game
	if s.Mode != "" {
		what += " " + s.Mode
	}
	if s.Level != "" {
		what += "/" + s.Level
	}
	fmt.Fprintf(&b, "<p>%s — %d rooms × %d players + %d spectators (+%d AI), %s loop, think %s, %s; started %s.</p>",
		html.EscapeString(what), s.Rooms, s.Players, s.Spectators, s.AI, html.EscapeString(s.Loop), html.EscapeString(s.Think),
		html.EscapeString(s.Duration), res.Started.Format("2006-01-02 15:04:05 MST"))
	if res.Violations.Total == 0 {
		b.WriteString(`<p class="ok">Every invariant held.</p>`)
	} else {
		fmt.Fprintf(&b, `<p class="bad">%d invariant violations.</p><table><tr><th>kind</th><th>count</th></tr>`, res.Violations.Total)
		for _, k := range slices.Sorted(maps.Keys(res.Violations.ByKind)) {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td></tr>", html.EscapeString(k), res.Violations.ByKind[k])
		}
		b.WriteString("</table>")
		for _, k := range slices.Sorted(maps.Keys(res.Violations.Examples)) {
			fmt.Fprintf(&b, "<pre>%s:\n%s</pre>", html.EscapeString(k), html.EscapeString(strings.Join(res.Violations.Examples[k], "\n")))
		}
	}

	w := res.Window
	b.WriteString("<h2>Summary</h2><table>")
	row := func(k, v string) {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td></tr>", html.EscapeString(k), html.EscapeString(v))
	}
	row("joins", fmt.Sprintf("%d of %d in %.2f s (%.0f joins/s), %d failed", res.Setup.Joined, res.Setup.Sockets, res.Setup.Seconds, res.Setup.JoinsPerSec, res.Setup.Failed))
	row("measured window", fmt.Sprintf("%.1f s", w.Seconds))
	row("moves accepted", fmt.Sprintf("%d (%.0f/s), %d sent", w.Moves, w.MovesPerSec, w.Sent))
	row("refusals (stale views, expected)", fmt.Sprint(w.Refusals))
	row("errors", fmt.Sprint(w.Errors))
	srv := w.ServerCPUNote
	if w.ServerCPU != nil {
		srv = fmt.Sprintf("%.2f s", *w.ServerCPU)
		if w.ServerCPUPerMv != nil {
			srv += fmt.Sprintf(" (%.1f µs per move)", *w.ServerCPUPerMv)
		}
	}
	row("server CPU", srv)
	row("bot CPU", fmt.Sprintf("%.2f s (%.1f µs per move)", w.BotCPUSeconds, w.BotCPUPerMove))
	c := res.Checks
	row("checks", fmt.Sprintf("%d view comparisons; %d final views verified, %d not; %d matches (%d frames) scanned for leaks, %d without a seed",
		c.ViewChecks, c.FinalViews, c.FinalUnverified, c.LeakMatches, c.LeakFrames, c.LeakUnchecked))
	b.WriteString("</table>")

	b.WriteString("<h2>Latency</h2><table><tr><th>kind (ms)</th><th>count</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>")
	for _, k := range latKinds {
		l := res.Latency[k]
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>",
			k, l.Count, ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P99), ms(l.P999), ms(l.Max))
	}
	b.WriteString("</table><p>move: a move's send to the arrival of both its receipt and its update. spectate: a player's send to a spectator's receipt of that update. join: create or join a room, open the socket, first snapshot.</p>")

	xs := make([]float64, len(res.Series))
	var p50, p99, mx, moves, sent, refusals, errs, online, joins []float64
	for i, p := range res.Series {
		xs[i] = p.T
		p50, p99, mx = append(p50, p.P50), append(p99, p.P99), append(mx, p.Max)
		moves, sent = append(moves, float64(p.Moves)), append(sent, float64(p.Sent))
		refusals, errs = append(refusals, float64(p.Refusals)), append(errs, float64(p.Errors))
		online, joins = append(online, float64(p.Online)), append(joins, float64(p.Joins))
	}
	b.WriteString(lineChart("Move round-trip latency over time (per second)", "time", "ms (log)", xs,
		[]chartSeries{{"p50", "#1f77b4", p50}, {"p99", "#d62728", p99}, {"max", "#999999", mx}}, true, seconds))
	b.WriteString(percentileChart("Latency by percentile (HDR histogram)", res.Latency, []string{latMove, latSpectate, latJoin}))
	b.WriteString(lineChart("Moves per second", "time", "per second", xs,
		[]chartSeries{{"accepted", "#2ca02c", moves}, {"sent", "#1f77b4", sent}}, false, seconds))
	b.WriteString(lineChart("Connections", "time", "sockets", xs,
		[]chartSeries{{"online", "#9467bd", online}, {"joins/s", "#ff7f0e", joins}}, false, seconds))
	b.WriteString(lineChart("Refusals and errors per second", "time", "per second", xs,
		[]chartSeries{{"expected refusals", "#ff7f0e", refusals}, {"errors", "#d62728", errs}}, false, seconds))

	if len(res.Nodes) > 1 || (len(res.Nodes) == 1 && res.Nodes[0].Moved > 0) {
		// Nodes by number and host: the report carries no links.
		b.WriteString("<h2>Nodes</h2><table><tr><th>node</th><th>rooms</th><th>sockets</th><th>online</th><th>moved (4009)</th></tr>")
		for i, n := range res.Nodes {
			host := n.URL
			if u, err := url.Parse(n.URL); err == nil && u.Host != "" {
				host = u.Host
			}
			fmt.Fprintf(&b, "<tr><td>%d: %s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr>", i+1, html.EscapeString(host), n.Rooms, n.Sockets, n.Online, n.Moved)
		}
		b.WriteString("</table><p>rooms: created through the node; sockets: started there; online: connections online through it, reconnects included; moved: closes 4009 it sent (the room had moved to another node).</p>")
	}

	b.WriteString("<h2>Counts</h2><table>")
	for _, k := range slices.Sorted(maps.Keys(res.Counts)) {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td></tr>", html.EscapeString(k), res.Counts[k])
	}
	b.WriteString("</table></body></html>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
