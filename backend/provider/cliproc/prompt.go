package cliproc

import (
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/loopforge/loopforge/backend/provider"
)

// MaxArgPrompt is the longest prompt passed as a command-line argument.
// Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN); longer
// prompts go to the CLI's stdin instead (each adapter knows how).
const MaxArgPrompt = 100 << 10

// Prompt flattens a request into the single prompt a CLI takes. Resuming a
// session (req.SessionID set), the CLI holds the conversation, so only the
// last user message is sent. Otherwise a lone user message is sent as is
// (after the system prompt, if any), and a longer conversation becomes a
// transcript ending with the message to answer.
func Prompt(provName string, req provider.Request) (string, error) {
	bad := func(msg string) error {
		return &provider.Error{Provider: provName, Kind: provider.KindBadRequest, Message: msg}
	}
	n := len(req.Messages)
	if n == 0 {
		return "", bad("the request has no message")
	}
	for _, m := range req.Messages {
		if m.Role != provider.RoleUser && m.Role != provider.RoleAssistant {
			return "", bad(fmt.Sprintf("message role %q is not user or assistant", m.Role))
		}
	}
	last := req.Messages[n-1]
	if last.Role != provider.RoleUser {
		return "", bad("the last message must be the user's")
	}
	if req.SessionID != "" {
		return last.Content, nil
	}
	var b strings.Builder
	if s := strings.TrimSpace(req.System); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	if n == 1 {
		b.WriteString(last.Content)
		return b.String(), nil
	}
	b.WriteString("Conversation so far (oldest first):\n")
	for _, m := range req.Messages[:n-1] {
		fmt.Fprintf(&b, "\n[%s]\n%s\n", m.Role, strings.TrimRight(m.Content, "\n"))
	}
	b.WriteString("\nReply to this latest user message:\n\n[user]\n")
	b.WriteString(last.Content)
	return b.String(), nil
}

// PromptArg makes a prompt safe as a positional argument: one that starts
// with "-" would be read as an option, so it gets a leading space.
func PromptArg(p string) string {
	if strings.HasPrefix(p, "-") {
		return " " + p
	}
	return p
}

// NewSessionID returns a random (version 4) UUID, for CLIs that accept the
// id of a new session.
func NewSessionID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
