// Command mqttload is the ingest bench's load generator from outside JavaScript (and, given `"download"`, the
// firmware bench's HTTP downloader: download.go): N MQTT 3.1.1 clients of
// eclipse/paho.mqtt.golang, each publishing QoS 1 messages to its own topic with K unacknowledged at a time (one
// goroutine a slot: publish, wait for the PUBACK, publish again), for a measured window after a warm-up.
//
// Input: one JSON object, the same as the bench's other generators take (bench/_support/mqtt-wire.ts LoadOpts),
// as the first argument, `@path` of a file holding it, or `-` (or nothing) for standard input:
//
//	{"url": "mqtt://127.0.0.1:1883", "devices": [{"clientId", "username"?, "password"?, "topic"}],
//	 "inflight": K, "seconds": 10, "warmup": 2, "points": 10, "payload"?: "...", "marks"?: true, "wave"?: 100,
//	 "intervalMs"?: 0}
//
// With `intervalMs` each slot publishes at most once per interval (a paced probe rather than a flood: slots start
// at random points of the interval, so the load is even), still waiting for each PUBACK before the next.
//
// Each device gets 8 payloads `{"p0":12.34,…}` of `points` values 10.00-99.99 that its messages cycle through
// (the raw-socket generator's payloads), or every message is `payload` when given. Clients connect in waves of
// `wave` (clean session, keep-alive 60 s, no reconnect); a refused or failed connection ends the run with exit
// status 1 and the reason on standard error, before anything is printed on standard output.
//
// Output: with `marks`, `{"mark":"start"}` and `{"mark":"end"}` around the measured window, then one JSON line:
// acked (PUBACKs received in the window), seconds, rate (acked / seconds), p50 and p99 (PUBACK latency, ms, the
// upper edge of a 50 µs bucket), errors (failed publishes, lost connections, time-outs), connectMs, cpu (this
// process's user + system CPU over the window from getrusage, % of one core), cpuUserUs, cpuSysUs, cpuUsPerMsg;
// and over the whole run, published (PUBLISHes handed to the clients) and ackedTotal (their PUBACKs): when the
// run stops, every slot finishes the message it has in flight, so the two are equal unless something failed.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

const (
	variants     = 8
	bucketUs     = 50
	buckets      = 10_000_000 / bucketUs // 10 s
	ackTimeout   = 30 * time.Second
	drainTimeout = 30 * time.Second
)

type device struct {
	ClientID string  `json:"clientId"`
	Username *string `json:"username"`
	Password *string `json:"password"`
	Topic    string  `json:"topic"`
}

type options struct {
	URL      string   `json:"url"`
	Devices  []device `json:"devices"`
	Inflight int      `json:"inflight"`
	Seconds  float64  `json:"seconds"`
	Warmup   float64  `json:"warmup"`
	Points   int      `json:"points"`
	Payload  *string  `json:"payload"`
	Marks    bool     `json:"marks"`
	Wave     int      `json:"wave"`
	// IntervalMs paces each slot: at most one publish per interval (0: as fast as the PUBACKs come).
	IntervalMs float64 `json:"intervalMs"`
	// Download, when given, makes this run HTTP downloads instead (download.go).
	Download *downloadOptions `json:"download"`
}

type result struct {
	Acked       uint64  `json:"acked"`
	Seconds     float64 `json:"seconds"`
	Rate        int64   `json:"rate"`
	P50         float64 `json:"p50"`
	P99         float64 `json:"p99"`
	Errors      uint64  `json:"errors"`
	ConnectMs   int64   `json:"connectMs"`
	CPU         int64   `json:"cpu"`
	CPUUserUs   int64   `json:"cpuUserUs"`
	CPUSysUs    int64   `json:"cpuSysUs"`
	CPUUsPerMsg float64 `json:"cpuUsPerMsg"`
	Published   uint64  `json:"published"`
	AckedTotal  uint64  `json:"ackedTotal"`
	Gomaxprocs  int     `json:"gomaxprocs"`
}

var (
	hist       = make([]uint32, buckets+1)
	acked      atomic.Uint64 // in the window
	ackedTotal atomic.Uint64
	published  atomic.Uint64
	errCount   atomic.Uint64
	recording  atomic.Bool
	stopping   atomic.Bool
)

func main() {
	o, err := readOptions()
	if err != nil {
		fail("mqttload: bad input: %v", err)
	}
	if o.Download != nil {
		runDownloads(*o.Download)
		return
	}
	broker, err := brokerAddress(o.URL)
	if err != nil {
		fail("mqttload: %v", err)
	}

	t0 := time.Now()
	clients := connectAll(o, broker)
	connectMs := time.Since(t0).Milliseconds()

	var slots sync.WaitGroup
	for i, c := range clients {
		payloads := payloadsOf(o)
		for s := 0; s < o.Inflight; s++ {
			slots.Add(1)
			go func() {
				defer slots.Done()
				pump(c, o.Devices[i].Topic, payloads, s, time.Duration(o.IntervalMs*float64(time.Millisecond)))
			}()
		}
	}

	time.Sleep(seconds(o.Warmup))
	mark(o, "start")
	recording.Store(true)
	r0 := time.Now()
	u0, s0 := rusage()
	time.Sleep(seconds(o.Seconds))
	recording.Store(false)
	u1, s1 := rusage()
	window := time.Since(r0).Seconds()
	mark(o, "end")

	// every slot finishes the message it has in flight, then the clients say DISCONNECT
	stopping.Store(true)
	if !waitTimeout(&slots, drainTimeout) {
		errCount.Add(1)
		fmt.Fprintln(os.Stderr, "mqttload: messages still unacknowledged 30 s after the run")
	}
	disconnectAll(clients)

	n := acked.Load()
	user, sys := u1-u0, s1-s0
	r := result{
		Acked:      n,
		Seconds:    window,
		Rate:       int64(float64(n)/window + 0.5),
		P50:        percentile(n, 0.5),
		P99:        percentile(n, 0.99),
		Errors:     errCount.Load(),
		ConnectMs:  connectMs,
		CPU:        int64(float64(user+sys)/10_000/window + 0.5),
		CPUUserUs:  user,
		CPUSysUs:   sys,
		Published:  published.Load(),
		AckedTotal: ackedTotal.Load(),
		Gomaxprocs: runtime.GOMAXPROCS(0),
	}
	if n > 0 {
		r.CPUUsPerMsg = float64((user+sys)*100/int64(n)) / 100
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
}

// pump keeps one slot of a client busy: publish, wait for the PUBACK, again (after `interval` from the last start,
// when it is not 0), until the run stops.
func pump(c mqtt.Client, topic string, payloads [][]byte, slot int, interval time.Duration) {
	turn := slot % len(payloads)
	next := time.Now()
	if interval > 0 {
		next = next.Add(time.Duration(rand.Int63n(int64(interval))))
	}
	for !stopping.Load() {
		if interval > 0 {
			if d := time.Until(next); d > 0 {
				time.Sleep(d)
			}
			next = next.Add(interval)
		}
		p := payloads[turn]
		turn = (turn + 1) % len(payloads)
		start := time.Now()
		published.Add(1)
		tok := c.Publish(topic, 1, false, p)
		if !tok.WaitTimeout(ackTimeout) {
			errCount.Add(1) // no PUBACK in 30 s: this slot stops, so that no more than K are in flight
			return
		}
		if tok.Error() != nil {
			errCount.Add(1)
			if !c.IsConnectionOpen() {
				return
			}
			continue
		}
		ackedTotal.Add(1)
		if recording.Load() {
			acked.Add(1)
			b := time.Since(start).Microseconds() / bucketUs
			if b > buckets {
				b = buckets
			}
			atomic.AddUint32(&hist[b], 1)
		}
	}
}

// connectAll connects every device, `wave` at a time; any failure ends the process.
func connectAll(o options, broker string) []mqtt.Client {
	clients := make([]mqtt.Client, len(o.Devices))
	for w := 0; w < len(o.Devices); w += o.Wave {
		end := min(w+o.Wave, len(o.Devices))
		var wg sync.WaitGroup
		failed := make(chan string, end-w)
		for i := w; i < end; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := connect(o.Devices[i], broker)
				if err != nil {
					failed <- fmt.Sprintf("%s: %v", o.Devices[i].ClientID, err)
					return
				}
				clients[i] = c
			}()
		}
		wg.Wait()
		close(failed)
		if reason, ok := <-failed; ok {
			fail("mqttload: connection failed: %s", reason)
		}
	}
	return clients
}

func connect(d device, broker string) (mqtt.Client, error) {
	opts := mqtt.NewClientOptions().
		AddBroker(broker).
		SetClientID(d.ClientID).
		SetProtocolVersion(4).
		SetCleanSession(true).
		SetKeepAlive(60 * time.Second).
		SetConnectTimeout(30 * time.Second).
		SetAutoReconnect(false).
		SetConnectRetry(false).
		SetConnectionLostHandler(func(mqtt.Client, error) {
			if !stopping.Load() {
				errCount.Add(1)
			}
		})
	if d.Username != nil {
		opts.SetUsername(*d.Username)
	}
	if d.Password != nil {
		opts.SetPassword(*d.Password)
	}
	c := mqtt.NewClient(opts)
	tok := c.Connect()
	if !tok.WaitTimeout(30 * time.Second) {
		return nil, fmt.Errorf("no CONNACK in 30 s")
	}
	if err := tok.Error(); err != nil {
		return nil, err
	}
	return c, nil
}

func disconnectAll(clients []mqtt.Client) {
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Disconnect(250)
		}()
	}
	wg.Wait()
}

// payloadsOf answers a device's payloads: `payload` alone, or 8 of `points` random values each.
func payloadsOf(o options) [][]byte {
	if o.Payload != nil {
		return [][]byte{[]byte(*o.Payload)}
	}
	out := make([][]byte, variants)
	for v := range out {
		var b strings.Builder
		b.WriteByte('{')
		for i := 0; i < o.Points; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			cents := 1000 + rand.Intn(9000)
			fmt.Fprintf(&b, `"p%d":%d.%02d`, i, cents/100, cents%100)
		}
		b.WriteByte('}')
		out[v] = []byte(b.String())
	}
	return out
}

// percentile answers the latency (ms, upper edge of its bucket) below which a share p of the n messages fall.
func percentile(n uint64, p float64) float64 {
	rank := uint64(float64(n)*p + 0.999999)
	var seen uint64
	for b, count := range hist {
		seen += uint64(count)
		if seen >= rank && seen > 0 {
			return float64((b+1)*bucketUs) / 1000
		}
	}
	return 0
}

// rusage answers this process's user and system CPU time so far, µs.
func rusage() (user, sys int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail("mqttload: getrusage: %v", err)
	}
	return ru.Utime.Nano() / 1000, ru.Stime.Nano() / 1000
}

func readOptions() (options, error) {
	var raw []byte
	var err error
	arg := "-"
	if len(os.Args) > 1 {
		arg = os.Args[1]
	}
	switch {
	case arg == "-":
		raw, err = io.ReadAll(os.Stdin)
	case strings.HasPrefix(arg, "@"):
		raw, err = os.ReadFile(arg[1:])
	default:
		raw = []byte(arg)
	}
	if err != nil {
		return options{}, err
	}
	o := options{Inflight: 1, Seconds: 10, Warmup: 2, Points: 10, Wave: 100}
	if err := json.Unmarshal(raw, &o); err != nil {
		return o, err
	}
	if o.Download != nil {
		if o.Download.URL == "" || o.Download.Concurrent < 1 {
			return o, fmt.Errorf("a download needs url and concurrent >= 1")
		}
		return o, nil
	}
	if len(o.Devices) == 0 || o.Inflight < 1 || o.Seconds <= 0 || o.Wave < 1 {
		return o, fmt.Errorf("need devices, inflight >= 1, seconds > 0, wave >= 1")
	}
	return o, nil
}

// brokerAddress turns `mqtt://host:port` into paho's `tcp://host:port` (port 1883 when none).
func brokerAddress(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "mqtt" && u.Scheme != "tcp") {
		return "", fmt.Errorf("url %q: want mqtt://host:port", raw)
	}
	port := u.Port()
	if port == "" {
		port = "1883"
	}
	return "tcp://" + net.JoinHostPort(u.Hostname(), port), nil
}

func mark(o options, m string) {
	if o.Marks {
		fmt.Printf("{\"mark\":%q}\n", m)
	}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
