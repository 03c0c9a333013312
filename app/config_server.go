package app

import (
	"fmt"
	"net"
)

// ServerConfig is the HTTP listener and the URL users reach it at.
type ServerConfig struct {
	Address   string `yaml:"address"`
	PublicURL string `yaml:"public_url"`
	// AdminListen is the address of the admin listener (Go's pprof
	// profiles under /debug/pprof/); "" (the default) starts none. A
	// host-less address (":6060") listens on loopback only, and another
	// host must be a loopback one unless AdminAllowRemote is set: the
	// profiles show the process's memory and are served without
	// authentication.
	AdminListen string `yaml:"admin_listen"`
	// AdminAllowRemote lets AdminListen name a non-loopback host.
	AdminAllowRemote bool `yaml:"admin_allow_remote"`
}

// validate reports the server block's problems, each naming its key.
func (s ServerConfig) validate() []error {
	var errs []error
	if _, _, err := net.SplitHostPort(s.Address); err != nil {
		errs = append(errs, fmt.Errorf("server.address: %q is not host:port: %w", s.Address, err))
	}
	if err := s.validateAdmin(); err != nil {
		errs = append(errs, err)
	}
	return appendURLErr(errs, "server.public_url", s.PublicURL)
}
