package main

import (
	"context"

	"github.com/loopforge/loopforge/backend/service"
)

// App is the Wails-bound facade: every exported method is callable from the
// frontend as window.go.main.App.<Name>. Methods stay thin and delegate to
// backend/service; they return (T, error) so errors keep their text.
type App struct {
	ctx context.Context
	svc *service.Service
}

// NewApp wraps a service for binding.
func NewApp(svc *service.Service) *App { return &App{svc: svc} }

func (a *App) startup(ctx context.Context) { a.ctx = ctx }

// Version reports the application version.
func (a *App) Version() string { return service.Version }
