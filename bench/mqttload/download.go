package main

// The firmware bench's downloader (bench/firmware.bench.ts): with `"download": {...}` in its input, mqttload runs
// `concurrent` HTTP downloads of `url` at once instead of MQTT clients (each with `auths[i % len]` as its
// Authorization header when given), each read to its end and dropped, each started again until `seconds` passed.
// It prints one JSON line: downloads, bytes, ms, mbps (MiB/s over the whole run), errors (a status other than 200, a
// failed request or read) and cpuMs (this process's user + system CPU).

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

type downloadOptions struct {
	URL        string   `json:"url"`
	Concurrent int      `json:"concurrent"`
	Seconds    float64  `json:"seconds"`
	Auths      []string `json:"auths"`
}

type downloadResult struct {
	Downloads uint64 `json:"downloads"`
	Bytes     uint64 `json:"bytes"`
	Ms        int64  `json:"ms"`
	Mbps      int64  `json:"mbps"`
	Errors    uint64 `json:"errors"`
	CPUMs     int64  `json:"cpuMs"`
}

func runDownloads(o downloadOptions) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Concurrent, DisableCompression: true}}
	var downloads, bytes, errors atomic.Uint64
	buf := make([][]byte, o.Concurrent)
	one := func(i int) {
		req, err := http.NewRequest(http.MethodGet, o.URL, nil)
		if err != nil {
			errors.Add(1)
			return
		}
		if len(o.Auths) > 0 {
			req.Header.Set("Authorization", o.Auths[i%len(o.Auths)])
		}
		res, err := client.Do(req)
		if err != nil {
			errors.Add(1)
			return
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			errors.Add(1)
		}
		for {
			n, err := res.Body.Read(buf[i])
			bytes.Add(uint64(n))
			if err == io.EOF {
				break
			}
			if err != nil {
				errors.Add(1)
				break
			}
		}
		downloads.Add(1)
	}
	u0, s0 := rusage()
	t0 := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < o.Concurrent; i++ {
		buf[i] = make([]byte, 256*1024)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				one(i)
				if time.Since(t0).Seconds() >= o.Seconds {
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	u1, s1 := rusage()
	r := downloadResult{
		Downloads: downloads.Load(),
		Bytes:     bytes.Load(),
		Ms:        elapsed.Milliseconds(),
		Mbps:      int64(float64(bytes.Load()) / (1 << 20) / elapsed.Seconds()),
		Errors:    errors.Load(),
		CPUMs:     (u1 - u0 + s1 - s0) / 1000,
	}
	_ = json.NewEncoder(os.Stdout).Encode(r)
}
