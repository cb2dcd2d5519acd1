package crc

//go:generate go run ./internal/gentables
