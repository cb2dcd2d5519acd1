package sim

import (
	"bytes"
	"context"
	"encoding/xml"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func comparison(t *testing.T) *Report {
	t.Helper()
	lib := library(t)
	w := Workload{Duration: 10 * time.Second, Interval: 500 * time.Millisecond, Shared: true,
		Callers: []Caller{{Rate: 8}, {Rate: 2, Burst: 10, Every: 4 * time.Second}}}
	rep, err := Run(context.Background(), w,
		Limiter{Script: lib["token_bucket"], Args: map[string]string{"capacity": "10", "rate": "5", "period_ms": "1000"}},
		Limiter{Script: lib["gcra"], Args: map[string]string{"rate": "5", "burst": "10", "period_ms": "1000"}},
		Limiter{Script: lib["gate"], Args: map[string]string{"interval_ms": "200"}},
		Limiter{Script: lib["window"], Args: map[string]string{"limits": "[[1000,5]]"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The PNG is looked at, not only written: it decodes, has the size the
// layout promises, and every panel has ink on it.
func TestPlotPNG(t *testing.T) {
	rep := comparison(t)
	b, err := rep.Plot(PNG)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	w, h := rep.Size()
	if got := img.Bounds(); got.Dx() != w || got.Dy() != h {
		t.Fatalf("PNG is %dx%d, want %dx%d", got.Dx(), got.Dy(), w, h)
	}
	if rows, cols := rep.Layout(); rows != 2 || cols != 3 {
		t.Fatalf("4 limiters laid out %dx%d, want 2x3", rows, cols)
	}
	rows, cols := rep.Layout()
	for i := range rep.Results {
		r := image.Rect(w*(i%cols)/cols, h*(i/cols)/rows, w*(i%cols+1)/cols, h*(i/cols+1)/rows)
		ink, dark := inkIn(img, r)
		if ink < r.Dx()*r.Dy()/100 || dark == 0 {
			t.Errorf("panel %d (%s) is nearly blank: %d inked, %d dark pixels of %d", i, rep.Results[i].Label, ink, dark, r.Dx()*r.Dy())
		}
	}
	// The unused sixth cell stays white: the ink above is the panels'.
	if ink, _ := inkIn(img, image.Rect(w*2/3+10, h/2+10, w-10, h-10)); ink != 0 {
		t.Errorf("the empty cell has %d inked pixels", ink)
	}
}

// inkIn counts non-white pixels, and those dark enough to be the black
// admitted line or text.
func inkIn(img image.Image, r image.Rectangle) (ink, dark int) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
				ink++
			}
			if cr < 0x3000 && cg < 0x3000 && cb < 0x3000 {
				dark++
			}
		}
	}
	return ink, dark
}

func TestPlotSVG(t *testing.T) {
	rep := comparison(t)
	b, err := rep.Plot(SVG)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
		Height  string `xml:"height,attr"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the SVG does not parse: %v", err)
	}
	if doc.XMLName.Local != "svg" || doc.Width == "" || doc.Height == "" {
		t.Errorf("root element %+v, want an svg with a size", doc)
	}
	for _, r := range rep.Results {
		if !bytes.Contains(b, []byte(r.Label)) {
			t.Errorf("the SVG does not name limiter %s", r.Label)
		}
	}
	if _, err := rep.Plot("gif"); err == nil {
		t.Error("an unknown format: no error")
	}
}

// The README's figures, as `make plots` committed them, are real images
// with something drawn on them.
func TestCommittedPlots(t *testing.T) {
	paths, _ := filepath.Glob("../docs/*.png")
	if len(paths) == 0 {
		t.Fatal("no docs/*.png: run make plots")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		r := img.Bounds()
		if r.Dx() < int(panelW.Dots(dpi)) || r.Dy() < int(panelH.Dots(dpi)) {
			t.Errorf("%s is %dx%d, smaller than one panel", p, r.Dx(), r.Dy())
		}
		if ink, dark := inkIn(img, r); ink < r.Dx()*r.Dy()/100 || dark == 0 {
			t.Errorf("%s is nearly blank", p)
		}
	}
}
