package service

// MaxSweepsPerInterval exposes the sweeps' pace to the tests.
const MaxSweepsPerInterval = maxSweepsPerInterval
