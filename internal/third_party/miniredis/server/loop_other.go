//go:build !linux

package server

import "net"

// evLoop is the event loop of loop_linux.go: elsewhere every client has a
// goroutine of its own.
type evLoop struct{}

func (*evLoop) close() {}

func (s *Server) serveInLoop(c net.Conn) bool { return false }
