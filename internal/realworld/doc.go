// Package realworld is the corpus test behind `make realworld`: the Lua
// scripts other projects ship, run through every stage as a new user
// would run them, with no header written by hand.
//
// Its test downloads pinned releases at run time (asynq and redis_rate
// from the Go module proxy, whose scripts are string constants extracted
// with go/parser, each with its Go doc comment as a Lua comment;
// BullMQ and Bull from npm, whose commands are .lua files) into a cache
// directory, and commits none of their code. For each project it lints
// every script, annotates it, lints it again, bundles and generates Go,
// then builds and vets the generated packages in a scratch module and
// runs the wrappers of asynq's enqueue script and BullMQ's addLog on a
// real redis-server, each checked against what the project's own client
// (asynq's Go client; BullMQ's, under node) gets on a second one, and prints
// per project: scripts, analysed, findings by rule, crashes, time and
// peak heap. It fails when a script is not analysed, annotating changes
// what lint reports as errors, a second annotate changes anything, or a
// generated package does not build or vet.
//
// The test runs only with SCRIPTGEN_REALWORLD=1 (the Makefile's target sets
// it): it needs the network of the module proxy and npm and takes minutes,
// so `make test` leaves it out.
//
// Imports: anything, in tests; the package itself holds no code.
package realworld
