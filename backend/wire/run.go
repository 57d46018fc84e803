package wire

import (
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/runreq"
)

// RunRequest asks for one loop: declared once, in backend/runreq, and sent
// to the service as it is (the service checks it).
type RunRequest = runreq.Request

// RunMode is a RunRequest's mode (event.Mode: script or workspace).
type RunMode = event.Mode

// WorkspaceTask is what a workspace run works on (runreq.Task).
type WorkspaceTask = runreq.Task

// CompareRequest runs one prompt on several providers at once; the other
// fields apply to every run. With SessionID it continues that comparison:
// each provider goes on with its own thread there.
type CompareRequest struct {
	runreq.Request `tstype:",extends"`
	Providers      []string `json:"providers"`
}

// RunInfo identifies a started run; its events arrive on the websocket.
type RunInfo struct {
	RunID     string `json:"run_id"`
	SessionID string `json:"session_id"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
}

// CompareInfo identifies a started comparison: one session, one run per
// provider, in the order asked.
type CompareInfo struct {
	SessionID string    `json:"session_id"`
	Runs      []RunInfo `json:"runs"`
}
