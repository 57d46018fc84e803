// The one seam between the UI and the Go backend. Both faces implement it:
// the desktop window through the generated Wails bindings (wails.ts) and the
// browser through loopforge serve's JSON API (http.ts). Components receive an
// Api and never touch window.go or fetch directly.

export interface Api {
  /** The application version, e.g. "0.1.0". */
  version(): Promise<string>
}
