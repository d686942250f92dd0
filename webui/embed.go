package webui

import (
	"embed"
	"io/fs"
)

// dist is the Vite build of webui/app. Only dist/.gitkeep is committed, so
// the Go build works on a machine that never ran npm; `make build` fills it.
//
//go:embed all:app/dist
var dist embed.FS

func embeddedApp() fs.FS {
	sub, err := fs.Sub(dist, "app/dist")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return sub
}
