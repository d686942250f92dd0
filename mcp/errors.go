package mcp

import (
	"encoding/json"
	"log/slog"
	"net/http"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// ToolError is the structured error a failed tool returns, under
// structuredContent.error. Agents branch on Code.
type ToolError struct {
	Code    apperr.Code       `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
	Details map[string]any    `json:"details,omitempty"`
}

// errorResult maps an application error to an MCP tool result with isError
// set: a model can read the text, a program the structured code. Internal
// errors are logged once here and shown without their cause.
func errorResult(logger *slog.Logger, tool string, err error) *mcpsdk.CallToolResult {
	te := ToolError{Code: apperr.CodeOf(err), Message: apperr.MessageOf(err)}
	if e, ok := apperr.As(err); ok && te.Code != apperr.Internal {
		te.Fields, te.Details = e.Fields, e.Details
	}
	if te.Code == apperr.DatabaseUnavailable {
		// The tool result's Retry-After: the call was fine, try it again.
		te.Details = map[string]any{"retry_after_seconds": 5}
	}
	switch te.Code.Kind() {
	case apperr.KindInternal:
		logger.Error("mcp tool failed", slog.String("tool", tool), slog.String("error", err.Error()))
	case apperr.KindUnavailable:
		logger.Warn("mcp tool unavailable", slog.String("tool", tool), slog.String("code", string(te.Code)))
	default:
		// A client mistake or a rule saying no: worth a line, not an alarm.
		logger.Info("mcp tool refused", slog.String("tool", tool), slog.String("code", string(te.Code)))
	}
	return &mcpsdk.CallToolResult{
		IsError:           true,
		Content:           []mcpsdk.Content{&mcpsdk.TextContent{Text: string(te.Code) + ": " + te.Message}},
		StructuredContent: map[string]any{"error": te},
	}
}

// writeHTTPError answers a request refused before it reaches the MCP server
// (bad origin, missing token) with the same JSON error body as the web API.
func writeHTTPError(w http.ResponseWriter, status int, err error) {
	te := ToolError{Code: apperr.CodeOf(err), Message: apperr.MessageOf(err)}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": te})
}
