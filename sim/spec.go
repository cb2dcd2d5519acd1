package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SplitSpec splits "name=value,name=value" into pairs. A comma starts a new
// pair only when a name= follows it, so JSON values keep their commas:
// limits=[[1000,5],[60000,100]],cost=1.
func SplitSpec(spec string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(spec) == "" {
		return out, nil
	}
	var parts []string
	start := 0
	for i := 0; i < len(spec); i++ {
		if spec[i] == ',' && startsPair(spec[i+1:]) {
			parts = append(parts, spec[start:i])
			start = i + 1
		}
	}
	parts = append(parts, spec[start:])
	for _, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want name=value", p)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s given twice", k)
		}
		out[k] = v
	}
	return out, nil
}

// startsPair reports whether s begins with an identifier and "=".
func startsPair(s string) bool {
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	return i > 0 && i < len(s) && s[i] == '='
}

// CallerFields are the names ParseCaller accepts.
const CallerFields = "name, rate, burst, every, start, stop, skew, poisson"

// ParseCaller reads a caller from "rate=10,burst=20,every=5s,skew=-30ms":
// rate in requests per second, the others Go durations.
func ParseCaller(spec string) (Caller, error) {
	var c Caller
	kv, err := SplitSpec(spec)
	if err != nil {
		return c, err
	}
	for k, v := range kv {
		switch k {
		case "name":
			c.Name = v
		case "rate":
			c.Rate, err = strconv.ParseFloat(v, 64)
		case "burst":
			c.Burst, err = strconv.Atoi(v)
		case "every":
			c.Every, err = time.ParseDuration(v)
		case "start":
			c.Start, err = time.ParseDuration(v)
		case "stop":
			c.Stop, err = time.ParseDuration(v)
		case "skew":
			c.Skew, err = time.ParseDuration(v)
		case "poisson":
			c.Poisson, err = strconv.ParseBool(v)
		default:
			return c, fmt.Errorf("unknown caller field %q; valid fields: %s", k, CallerFields)
		}
		if err != nil {
			return c, fmt.Errorf("%s=%s: %w", k, v, err)
		}
	}
	return c, nil
}
