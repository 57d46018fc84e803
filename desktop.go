//go:build desktop || dev || bindings

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/loopforge/loopforge/backend/server"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
)

// wailsOrigins are the Origins the desktop webview sends (they differ by
// platform and WebKit version).
var wailsOrigins = []string{"wails://wails", "wails://wails.localhost", "http://wails.localhost"}

// runDesktop opens the Wails window over the embedded frontend. Commands go
// through the bindings; live events come from the same websocket server as
// `loopforge serve`, on a random loopback port with its own token.
func runDesktop(svc *service.Service, dist fs.FS) error {
	var events wire.Endpoint
	if svc != nil { // nil only while wails generates bindings
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("starting the event server: %w", err)
		}
		token := server.NewToken()
		srv := &http.Server{
			Handler:           server.New(server.Options{Token: token, Version: service.Version, Backend: svc, ExtraOrigins: wailsOrigins}),
			ReadHeaderTimeout: 10 * time.Second,
		}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				slog.Error("event server stopped", "err", err)
			}
		}()
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = srv.Shutdown(ctx)
		}()
		events = wire.Endpoint{URL: "ws://" + ln.Addr().String() + "/api/ws", Token: token}
	}
	app := NewApp(svc, events)
	return wails.Run(&options.App{
		Title:            "loopforge",
		Width:            1280,
		Height:           860,
		MinWidth:         900,
		MinHeight:        600,
		AssetServer:      &assetserver.Options{Assets: dist},
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 252, A: 1},
		OnStartup:        app.startup,
		// WebKit never takes a drop itself (it would open the dropped folder in
		// place of the app). On Linux GTK takes folder drops (takeFolderDrops,
		// desktop_gtk.go), elsewhere Wails' file drop (app.startup).
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: takeFolderDrops == nil, DisableWebViewDrop: true},
		Bind:        []any{app},
		// A binding rejects with the same body as a failed web request
		// (wire.ErrorBody: text, code, parameters), so the frontend words it the
		// same way on both faces.
		ErrorFormatter: func(err error) any { return wire.ErrorOf(err) },
	})
}
