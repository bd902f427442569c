package main

import (
	"bytes"
	"fmt"
	"github.com/roomd/roomd"
	"net"
	"net/url"
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
	roomd.ParseFlags([]string{"-h"}, &b)
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
	t.Parallel()
	help := helpText(t)
	t.Run("names", func(t *testing.T) { checkNamesInText(t, help) })
	t.Run("k8s", func(t *testing.T) { checkK8s(t, help) })
	t.Run("compose", func(t *testing.T) { checkCompose(t, help) })
	t.Run("compose-scale", func(t *testing.T) { checkScaleCompose(t, help) })
	t.Run("dockerfile", func(t *testing.T) { checkDockerfile(t, help) })
}

// defaultShutdown is --shutdown-timeout's default.
const defaultShutdown = 20 * time.Second

// deployFiles are every file of deploy/.
var deployFiles = []string{"Dockerfile", "docker-compose.yml", "docker-compose.scale.yml", "nginx.conf", "k8s/roomd.yaml", "k8s/redis.yaml"}

// checkNamesInText: every ROOMD_ variable a deploy file names anywhere,
// comments included, is one `roomd -h` documents, and every file of
// deploy/ is one this test reads.
func checkNamesInText(t *testing.T, help string) {
	for _, f := range deployFiles {
		data, err := os.ReadFile("../../deploy/" + f)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range envRef.FindAllString(string(data), -1) {
			if !strings.Contains(help, "(env "+n+")") {
				t.Errorf("deploy/%s names %s, which `roomd -h` does not document", f, n)
			}
		}
	}
	entries, err := os.ReadDir("../../deploy")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && !slices.Contains(deployFiles, e.Name()) {
			t.Errorf("deploy/%s is not checked by this test", e.Name())
		}
	}
}

// checkFlags: every --flag in a command line is one of `roomd -h`.
func checkFlags(t *testing.T, file string, args []string, help string) {
	t.Helper()
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.Contains(help, "\n  -"+name+" ") && !strings.Contains(help, "\n  -"+name+"\n") {
			t.Errorf("%s passes %s, which `roomd -h` does not list", file, a)
		}
	}
}

// k8sEnv reads a container's env: values by name, the fieldRef paths of
// those that come from the pod, and every name in order.
func k8sEnv(t *testing.T, c any) (values, fields map[string]string, names []string) {
	values, fields = map[string]string{}, map[string]string{}
	for _, e := range dig(t, c, "env").([]any) {
		m := e.(map[string]any)
		name := m["name"].(string)
		names = append(names, name)
		if v, ok := m["value"].(string); ok {
			values[name] = v
		}
		if vf, ok := m["valueFrom"].(map[string]any); ok {
			if fr, ok := vf["fieldRef"].(map[string]any); ok {
				fields[name], _ = fr["fieldPath"].(string)
			}
		}
	}
	return values, fields, names
}

var k8sRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

func checkK8s(t *testing.T, help string) {
	docs := readYAMLDocs(t, "../../deploy/k8s/roomd.yaml")
	var deploy, service map[string]any
	for _, d := range docs {
		switch d["kind"] {
		case "Deployment":
			deploy = d
		case "Service":
			service = d
		}
	}
	if deploy == nil || service == nil {
		t.Fatal("deploy/k8s/roomd.yaml needs a Deployment and a Service")
	}
	spec := dig(t, deploy, "spec", "template", "spec")
	c := dig(t, spec, "containers", 0)
	env, fields, names := k8sEnv(t, c)
	var roomdNames []string
	for _, n := range names {
		if strings.HasPrefix(n, "ROOMD_") {
			roomdNames = append(roomdNames, n)
			continue
		}
		// Any other variable is a helper a ROOMD_ value refers to as
		// $(NAME), as ROOMD_PEER_URL does to the pod's address.
		used := false
		for _, v := range env {
			for _, m := range k8sRef.FindAllStringSubmatch(v, -1) {
				used = used || m[1] == n
			}
		}
		if !used {
			t.Errorf("k8s sets %s, which no ROOMD_ variable uses", n)
		}
	}
	checkEnv(t, "k8s", roomdNames, help)
	if args, ok := c.(map[string]any)["args"]; ok {
		checkFlags(t, "k8s", toStrings(args), help)
	}
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

	// A rolling update drains one pod at a time: a new one first, never
	// fewer than the replicas, and the grace period covers the preStop
	// pause and the drain.
	if r, _ := dig(t, deploy, "spec", "replicas").(int); r < 2 {
		t.Errorf("k8s replicas %v: several nodes want at least 2", dig(t, deploy, "spec", "replicas"))
	}
	if got := dig(t, deploy, "spec", "strategy", "type"); got != "RollingUpdate" {
		t.Errorf("k8s strategy %v, want RollingUpdate", got)
	}
	ru := dig(t, deploy, "spec", "strategy", "rollingUpdate")
	if dig(t, ru, "maxUnavailable") != 0 || dig(t, ru, "maxSurge") != 1 {
		t.Errorf("k8s rollingUpdate %v, want maxUnavailable 0 and maxSurge 1", ru)
	}
	shutdown, err := time.ParseDuration(env["ROOMD_SHUTDOWN_TIMEOUT"])
	if err != nil {
		shutdown = defaultShutdown
	}
	preStop := time.Duration(dig(t, c, "lifecycle", "preStop", "sleep", "seconds").(int)) * time.Second
	if preStop < 2*time.Second {
		t.Errorf("k8s preStop sleeps %v: too short for the endpoints to drop the pod first", preStop)
	}
	grace := time.Duration(dig(t, spec, "terminationGracePeriodSeconds").(int)) * time.Second
	if grace <= shutdown+preStop {
		t.Errorf("terminationGracePeriodSeconds %v does not cover preStop %v + shutdown %v", grace, preStop, shutdown)
	}

	// Each pod is a node: an id of its own, reached by its own address.
	if env["ROOMD_NODE_ID"] == "" && fields["ROOMD_NODE_ID"] != "metadata.name" {
		t.Errorf("k8s ROOMD_NODE_ID is neither set nor the pod's name")
	}
	peer := env["ROOMD_PEER_URL"]
	m := k8sRef.FindStringSubmatch(peer)
	if m == nil || fields[m[1]] != "status.podIP" || !strings.HasPrefix(peer, "http://") || !strings.HasSuffix(peer, ":"+port) {
		t.Errorf("k8s ROOMD_PEER_URL %q: want http://$(POD_IP):%s with POD_IP from status.podIP", peer, port)
	}
	if i := slices.Index(names, "ROOMD_PEER_URL"); m != nil && slices.Index(names, m[1]) > i {
		t.Errorf("k8s sets %s after ROOMD_PEER_URL, which refers to it: Kubernetes would not expand it", m[1])
	}
	svcName, _ := dig(t, service, "metadata", "name").(string)
	hosts := strings.Split(env["ROOMD_PUBLIC_HOST"], ",")
	if !slices.Contains(hosts, svcName) {
		t.Errorf("k8s ROOMD_PUBLIC_HOST %q does not list the Service's name %q: in-cluster clients would get 421", env["ROOMD_PUBLIC_HOST"], svcName)
	}
	if u, err := url.Parse(env["ROOMD_PUBLIC_URL"]); err != nil || (u.Scheme != "http" && u.Scheme != "https") || !slices.Contains(hosts, u.Hostname()) {
		t.Errorf("k8s ROOMD_PUBLIC_URL %q: want an http(s) URL whose host ROOMD_PUBLIC_HOST lists", env["ROOMD_PUBLIC_URL"])
	}
	checkLeaseTTL(t, "k8s", env)
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
}

// checkLeaseTTL: a lease TTL, when set, is a duration of at most 10 s (a
// dead node's rooms come back within it).
func checkLeaseTTL(t *testing.T, file string, env map[string]string) {
	t.Helper()
	v, ok := env["ROOMD_LEASE_TTL"]
	if !ok {
		return
	}
	if d, err := time.ParseDuration(v); err != nil || d <= 0 || d > 10*time.Second {
		t.Errorf("%s ROOMD_LEASE_TTL %q: want a duration up to 10s", file, v)
	}
}

// composeEnv reads a compose service's environment (a map).
func composeEnv(t *testing.T, file string, svc map[string]any) (map[string]string, []string) {
	t.Helper()
	env := map[string]string{}
	var names []string
	m, ok := svc["environment"].(map[string]any)
	if !ok {
		t.Fatalf("%s: a service's environment is not a map", file)
	}
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			t.Errorf("%s: %s is not a string (quote it)", file, k)
		}
		env[k] = s
		names = append(names, k)
	}
	slices.Sort(names)
	return env, names
}

// checkComposeNode: what every roomd service of a compose file needs.
func checkComposeNode(t *testing.T, file, name string, rd map[string]any, env map[string]string, help string) string {
	t.Helper()
	port := portOf(t, env["ROOMD_ADDR"])
	stop, _ := time.ParseDuration(fmt.Sprint(rd["stop_grace_period"]))
	shut, err := time.ParseDuration(env["ROOMD_SHUTDOWN_TIMEOUT"])
	if err != nil {
		shut = defaultShutdown
	}
	if stop <= shut {
		t.Errorf("%s %s: stop_grace_period %v does not cover the shutdown timeout %v", file, name, stop, shut)
	}
	if hc := strings.Join(toStrings(dig(t, rd, "healthcheck", "test")), " "); !strings.Contains(hc, "probe") || !strings.Contains(hc, ":"+port+"/readyz") {
		t.Errorf("%s %s: healthcheck %q does not probe /readyz on %s", file, name, hc, port)
	}
	if cmd, ok := rd["command"]; ok {
		checkFlags(t, file+" "+name, toStrings(cmd), help)
	}
	return port
}

// checkCompose: the single node.
func checkCompose(t *testing.T, help string) {
	const file = "docker-compose"
	compose := readYAMLDocs(t, "../../deploy/docker-compose.yml")[0]
	rd := dig(t, compose, "services", "roomd").(map[string]any)
	cenv, names := composeEnv(t, file, rd)
	checkEnv(t, file, names, help)
	cport := checkComposeNode(t, file, "roomd", rd, cenv, help)
	if got := dig(t, rd, "ports", 0).(string); !strings.HasSuffix(got, ":"+cport) {
		t.Errorf("compose publishes %s, roomd listens on %s", got, cport)
	}
	if !slices.Contains(strings.Split(cenv["ROOMD_PUBLIC_HOST"], ","), "roomd") {
		t.Errorf("compose ROOMD_PUBLIC_HOST %q does not list the service's name roomd: other containers would get 421", cenv["ROOMD_PUBLIC_HOST"])
	}
	redisCmd := strings.Join(toStrings(dig(t, compose, "services", "redis", "command")), " ")
	if !strings.Contains(redisCmd, "--appendonly yes") {
		t.Errorf("compose Redis without AOF: %s", redisCmd)
	}
}

// checkScaleCompose: three nodes on one Redis behind nginx.
func checkScaleCompose(t *testing.T, help string) {
	const file = "docker-compose.scale"
	compose := readYAMLDocs(t, "../../deploy/docker-compose.scale.yml")[0]
	services := dig(t, compose, "services").(map[string]any)
	var nodes []string
	for name, svc := range services {
		if env, ok := svc.(map[string]any)["environment"].(map[string]any); ok && env["ROOMD_ADDR"] != nil {
			nodes = append(nodes, name)
		}
	}
	slices.Sort(nodes)
	if len(nodes) != 3 {
		t.Fatalf("%s has roomd services %v, want three", file, nodes)
	}
	redisCmd := strings.Join(toStrings(dig(t, services, "redis", "command")), " ")
	if !strings.Contains(redisCmd, "--appendonly yes") {
		t.Errorf("%s: Redis without AOF: %s", file, redisCmd)
	}

	// The balancer: nginx with deploy/nginx.conf, published on the port
	// the nodes' public URL names.
	lb := dig(t, services, "lb").(map[string]any)
	if img, _ := lb["image"].(string); !strings.HasPrefix(img, "nginx:") {
		t.Errorf("%s: the balancer's image %q is not nginx", file, img)
	}
	if vols := strings.Join(toStrings(lb["volumes"]), " "); !strings.Contains(vols, "./nginx.conf:/etc/nginx/nginx.conf") {
		t.Errorf("%s: the balancer does not mount deploy/nginx.conf: %s", file, vols)
	}
	published, inside, ok := strings.Cut(dig(t, lb, "ports", 0).(string), ":")
	if !ok {
		t.Fatalf("%s: the balancer's port %v is not HOST:CONTAINER", file, dig(t, lb, "ports", 0))
	}
	lbIP, _ := dig(t, lb, "networks", "default", "ipv4_address").(string)

	var nodeIDs []string
	var redisURL, publicURL string
	var ports []string
	for i, name := range nodes {
		rd := services[name].(map[string]any)
		env, names := composeEnv(t, file, rd)
		checkEnv(t, file+" "+name, names, help)
		port := checkComposeNode(t, file, name, rd, env, help)
		ports = append(ports, port)
		if _, ok := rd["ports"]; ok {
			t.Errorf("%s %s publishes a port: clients go through the balancer", file, name)
		}
		for _, k := range []string{"ROOMD_REDIS_URL", "ROOMD_NODE_ID", "ROOMD_PUBLIC_URL", "ROOMD_PEER_URL"} {
			if env[k] == "" {
				t.Errorf("%s %s: %s is not set", file, name, k)
			}
		}
		if i == 0 {
			redisURL, publicURL = env["ROOMD_REDIS_URL"], env["ROOMD_PUBLIC_URL"]
		} else if env["ROOMD_REDIS_URL"] != redisURL || env["ROOMD_PUBLIC_URL"] != publicURL {
			t.Errorf("%s %s: every node shares one Redis and one public URL (%s, %s), not %s, %s",
				file, name, redisURL, publicURL, env["ROOMD_REDIS_URL"], env["ROOMD_PUBLIC_URL"])
		}
		if slices.Contains(nodeIDs, env["ROOMD_NODE_ID"]) {
			t.Errorf("%s %s: ROOMD_NODE_ID %q is another node's", file, name, env["ROOMD_NODE_ID"])
		}
		nodeIDs = append(nodeIDs, env["ROOMD_NODE_ID"])
		if want := "http://" + name + ":" + port; env["ROOMD_PEER_URL"] != want {
			t.Errorf("%s %s: ROOMD_PEER_URL %q, want %q (how the other nodes reach it)", file, name, env["ROOMD_PEER_URL"], want)
		}
		if !slices.Contains(strings.Split(env["ROOMD_PUBLIC_HOST"], ","), "lb") {
			t.Errorf("%s %s: ROOMD_PUBLIC_HOST %q does not list the balancer's name lb: other containers would get 421", file, name, env["ROOMD_PUBLIC_HOST"])
		}
		if lbIP == "" || env["ROOMD_TRUSTED_PROXIES"] != lbIP {
			t.Errorf("%s %s: ROOMD_TRUSTED_PROXIES %q is not the balancer's address %q: every client would share its quotas",
				file, name, env["ROOMD_TRUSTED_PROXIES"], lbIP)
		}
		checkLeaseTTL(t, file+" "+name, env)
	}
	if u, err := url.Parse(redisURL); err != nil || u.Scheme != "redis" || services[u.Hostname()] == nil {
		t.Errorf("%s: ROOMD_REDIS_URL %q does not name the compose's Redis", file, redisURL)
	}
	if u, err := url.Parse(publicURL); err != nil || u.Port() != published || (u.Hostname() != "localhost" && u.Hostname() != "127.0.0.1") {
		t.Errorf("%s: ROOMD_PUBLIC_URL %q is not the balancer's published port %s", file, publicURL, published)
	}

	// nginx.conf: round robin over every node, sockets upgraded.
	data, err := os.ReadFile("../../deploy/nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(data)
	if !regexp.MustCompile(`(?m)^\s*listen\s+` + regexp.QuoteMeta(inside) + `;`).MatchString(conf) {
		t.Errorf("nginx.conf does not listen on %s, the port compose publishes", inside)
	}
	for i, name := range nodes {
		if !regexp.MustCompile(`(?m)^\s*server\s+` + regexp.QuoteMeta(name+":"+ports[i]) + `[\s;]`).MatchString(conf) {
			t.Errorf("nginx.conf's upstream lacks %s:%s", name, ports[i])
		}
	}
	for _, want := range []string{"proxy_pass http://", "proxy_http_version 1.1;", "proxy_set_header Upgrade $http_upgrade;",
		"proxy_set_header Connection $connection_upgrade;", "proxy_set_header Host $http_host;", "proxy_read_timeout"} {
		if !strings.Contains(conf, want) {
			t.Errorf("nginx.conf lacks %q", want)
		}
	}
	for _, sticky := range []string{"ip_hash", "sticky", "\n    hash ", "least_conn"} {
		if strings.Contains(conf, sticky) {
			t.Errorf("nginx.conf balances with %q: plain round robin is enough (any node reaches any room)", strings.TrimSpace(sticky))
		}
	}
}

func checkDockerfile(t *testing.T, help string) {
	df, err := os.ReadFile("../../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	compose := readYAMLDocs(t, "../../deploy/docker-compose.yml")[0]
	cenv, _ := composeEnv(t, "docker-compose", dig(t, compose, "services", "roomd").(map[string]any))
	cport := portOf(t, cenv["ROOMD_ADDR"])
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
	t.Parallel()
	if code := (roomd.Command{Stderr: &bytes.Buffer{}}).Run([]string{"probe", "http://127.0.0.1:1/readyz"}); code != 1 {
		t.Fatalf("probe of a closed port exited %d", code)
	}
}
