package sim

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Fairness is Jain's index over the callers' admitted share of what they
// asked for: 1 when every caller got the same fraction of its requests,
// down to 1/n when one caller got everything. Shares rather than counts,
// so that a caller asking for less is not counted as treated unfairly.
func (r *Result) Fairness() float64 {
	var sum, sq float64
	n := 0
	for _, c := range r.Callers {
		if c.Requested == 0 {
			continue
		}
		x := float64(c.Admitted) / float64(c.Requested)
		sum += x
		sq += x * x
		n++
	}
	if n == 0 || sq == 0 {
		return 1
	}
	return sum * sum / (float64(n) * sq)
}

// Totals sums the callers.
func (r *Result) Totals() CallerStats {
	t := CallerStats{Name: "*"}
	for _, c := range r.Callers {
		t.Requested += c.Requested
		t.Admitted += c.Admitted
		t.Denied += c.Denied
		t.AdmittedPerSecond += c.AdmittedPerSecond
		if c.HasDenied && (!t.HasDenied || c.FirstDenied < t.FirstDenied) {
			t.HasDenied, t.FirstDenied = true, c.FirstDenied
		}
	}
	t.Burst = r.Burst
	return t
}

// interval returns bin i's bounds.
func (w *Workload) interval(i int) (from, to time.Duration) {
	from = time.Duration(i) * w.Interval
	to = min(from+w.Interval, w.Duration)
	return from, to
}

// WriteTable prints the workload, admitted/denied per interval for every
// limiter side by side, and a summary per limiter and per caller.
func (rep *Report) WriteTable(out io.Writer) error {
	w := &rep.Workload
	resource := "a key per caller"
	if w.Shared {
		resource = "one shared key"
	}
	fmt.Fprintf(out, "workload: %v, %d caller(s), %s; interval %v, burst window %v\n", w.Duration, len(w.Callers), resource, w.Interval, w.Window)
	for _, c := range w.Callers {
		fmt.Fprintf(out, "  %s: %s\n", c.Name, describe(c))
	}
	fmt.Fprintln(out)

	head := []string{"interval"}
	for _, r := range rep.Results {
		head = append(head, r.Label+" admitted", "denied")
	}
	rows := [][]string{head}
	for i := range w.Intervals() {
		from, to := w.interval(i)
		cells := []string{fmt.Sprintf("%v-%v", from, to)}
		for _, r := range rep.Results {
			cells = append(cells, itoa(sum(r.Admitted[i])), itoa(sum(r.Denied[i])))
		}
		rows = append(rows, cells)
	}
	if err := table(out, rows); err != nil {
		return err
	}
	fmt.Fprintln(out)

	rows = [][]string{{"limiter", "caller", "requested", "admitted", "denied", "admitted/s", "burst/" + w.Window.String(), "first denied", "fairness"}}
	for _, r := range rep.Results {
		rows = append(rows, append(append([]string{r.Label, "all"}, statCells(r.Totals())...), strconv.FormatFloat(r.Fairness(), 'f', 3, 64)))
		if len(r.Callers) > 1 {
			for _, c := range r.Callers {
				rows = append(rows, append(append([]string{"", c.Name}, statCells(c)...), ""))
			}
		}
	}
	return table(out, rows)
}

// table aligns cells right, as numbers read best.
func table(out io.Writer, rows [][]string) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range rows {
		io.WriteString(tw, strings.Join(r, "\t")+"\t\n")
	}
	return tw.Flush()
}

func statCells(c CallerStats) []string {
	first := "-"
	if c.HasDenied {
		first = c.FirstDenied.Round(time.Millisecond).String()
	}
	return []string{itoa(c.Requested), itoa(c.Admitted), itoa(c.Denied), strconv.FormatFloat(c.AdmittedPerSecond, 'f', 2, 64), itoa(c.Burst), first}
}

func describe(c Caller) string {
	var parts []string
	if c.Rate > 0 {
		r := strconv.FormatFloat(c.Rate, 'f', -1, 64) + " req/s"
		if c.Poisson {
			r += " (Poisson)"
		}
		parts = append(parts, r)
	}
	if c.Burst > 0 {
		b := fmt.Sprintf("bursts of %d", c.Burst)
		if c.Every > 0 {
			b += " every " + c.Every.String()
		} else {
			b += " once"
		}
		parts = append(parts, b)
	}
	s := strings.Join(parts, " + ")
	if c.Start > 0 {
		s += ", from " + c.Start.String()
	}
	s += ", until " + c.Stop.String()
	if c.Skew != 0 {
		s += ", clock skew " + c.Skew.String()
	}
	return s
}

// WriteCSV writes one row per limiter, interval and caller: the tidy form
// spreadsheets and plotting tools read.
func (rep *Report) WriteCSV(out io.Writer) error {
	cw := csv.NewWriter(out)
	cw.Write([]string{"limiter", "from_ms", "to_ms", "caller", "admitted", "denied"})
	w := &rep.Workload
	for _, r := range rep.Results {
		for i := range w.Intervals() {
			from, to := w.interval(i)
			for ci, c := range w.Callers {
				cw.Write([]string{r.Label, itoa(from.Milliseconds()), itoa(to.Milliseconds()), c.Name, itoa(r.Admitted[i][ci]), itoa(r.Denied[i][ci])})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func sum(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
