package peers

// known lists the tests that pass on redis-server and fail on serve today,
// by suite, with the reason. TestPeers requires each to still fail there,
// so a fix must remove its entry; what is not listed must pass.
var known = []struct{ suite, test, reason string }{}

func knownBySuite() map[string]map[string]string {
	m := map[string]map[string]string{}
	for _, k := range known {
		if m[k.suite] == nil {
			m[k.suite] = map[string]string{}
		}
		m[k.suite][k.test] = k.reason
	}
	return m
}
