package sim

import (
	"bytes"
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot formats.
const (
	PNG = "png"
	SVG = "svg"
)

// Panel size of one limiter in the figure; the figure grows with the
// number of limiters so that each stays as legible as a single one.
const (
	panelW = 4 * vg.Inch
	panelH = 3 * vg.Inch
	dpi    = 96
)

// maxCallerLines bounds the per-caller lines of a panel: beyond a few,
// lines overlap into noise and only the totals are drawn.
const maxCallerLines = 4

// Layout returns the grid the figure uses: up to three panels a row.
func (rep *Report) Layout() (rows, cols int) {
	n := len(rep.Results)
	cols = min(n, 3)
	if cols == 0 {
		return 0, 0
	}
	return (n + cols - 1) / cols, cols
}

// Size returns the figure's size in pixels for PNG.
func (rep *Report) Size() (w, h int) {
	rows, cols := rep.Layout()
	return int((panelW * vg.Length(cols)).Dots(dpi)), int((panelH * vg.Length(rows)).Dots(dpi))
}

// WritePlot draws one panel per limiter, side by side, each showing the
// requests offered and admitted per interval (and per caller when there
// are few), and writes it as PNG or SVG.
func (rep *Report) WritePlot(out io.Writer, format string) error {
	rows, cols := rep.Layout()
	if rows == 0 {
		return fmt.Errorf("sim: nothing to plot")
	}
	w, h := panelW*vg.Length(cols), panelH*vg.Length(rows)
	var (
		canvas vg.CanvasWriterTo
		dc     draw.Canvas
	)
	switch format {
	case PNG:
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
		canvas, dc = vgimg.PngCanvas{Canvas: c}, draw.New(c)
	case SVG:
		c := vgsvg.New(w, h)
		canvas, dc = c, draw.New(c)
	default:
		return fmt.Errorf("sim: unknown plot format %q; valid formats: %s, %s", format, PNG, SVG)
	}
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	ymax := 0.0 // one scale for every panel, so that heights compare
	for _, r := range rep.Results {
		for i := range r.Admitted {
			ymax = max(ymax, float64(sum(r.Admitted[i])+sum(r.Denied[i])))
		}
	}
	for i, r := range rep.Results {
		p, err := rep.panel(r, ymax)
		if err != nil {
			return err
		}
		plots[i/cols][i%cols] = p
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		for j, p := range plots[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	_, err := canvas.WriteTo(out)
	return err
}

// Plot returns the figure as bytes.
func (rep *Report) Plot(format string) ([]byte, error) {
	var b bytes.Buffer
	if err := rep.WritePlot(&b, format); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (rep *Report) panel(r *Result, ymax float64) (*plot.Plot, error) {
	w := &rep.Workload
	p := plot.New()
	t := r.Totals()
	p.Title.Text = fmt.Sprintf("%s: %d of %d admitted, burst %d/%v", r.Label, t.Admitted, t.Requested, r.Burst, w.Window)
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = fmt.Sprintf("requests per %v", w.Interval)
	p.Y.Min, p.Y.Max = 0, ymax*1.05+1
	p.X.Min, p.X.Max = 0, w.Duration.Seconds()
	p.Legend.Top = true
	p.Add(plotter.NewGrid())

	series := func(f func(i int) int64) plotter.XYs {
		n := w.Intervals()
		xys := make(plotter.XYs, 0, n+1)
		for i := range n {
			from, _ := w.interval(i)
			xys = append(xys, plotter.XY{X: from.Seconds(), Y: float64(f(i))})
		}
		// Repeat the last value at the end so the last step is drawn.
		if n > 0 {
			xys = append(xys, plotter.XY{X: w.Duration.Seconds(), Y: xys[n-1].Y})
		}
		return xys
	}
	add := func(name string, xys plotter.XYs, c color.Color, width vg.Length, dashed bool) error {
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.StepStyle = plotter.PostStep
		l.Color, l.Width = c, width
		if dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(name, l)
		return nil
	}
	if err := add("offered", series(func(i int) int64 { return sum(r.Admitted[i]) + sum(r.Denied[i]) }), color.Gray{Y: 150}, vg.Points(1.5), true); err != nil {
		return nil, err
	}
	if err := add("admitted", series(func(i int) int64 { return sum(r.Admitted[i]) }), color.Black, vg.Points(2), false); err != nil {
		return nil, err
	}
	if n := len(w.Callers); n > 1 && n <= maxCallerLines {
		for ci, c := range w.Callers {
			if err := add(c.Name, series(func(i int) int64 { return r.Admitted[i][ci] }), plotutil.Color(ci), vg.Points(1.2), false); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}
