package main

import (
	"io/fs"

	"github.com/loopforge/loopforge/backend/service"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
)

// runDesktop opens the Wails window over the embedded frontend.
func runDesktop(svc *service.Service, dist fs.FS) error {
	app := NewApp(svc)
	return wails.Run(&options.App{
		Title:            "loopforge",
		Width:            1280,
		Height:           860,
		MinWidth:         900,
		MinHeight:        600,
		AssetServer:      &assetserver.Options{Assets: dist},
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 252, A: 1},
		OnStartup:        app.startup,
		Bind:             []any{app},
	})
}
