package webui

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestReadUpload: the one reader of raw upload bodies (bundles, character
// files, imports, stage images) keeps a body up to its limit, refuses a
// longer one with the route's code and 413, or hands gameplay one byte past
// the limit when gameplay refuses it; an interrupted body is invalid_request.
func TestReadUpload(t *testing.T) {
	const limit = 8
	tests := []struct {
		name     string
		body     io.Reader
		tooLarge apperr.Code
		wantLen  int    // bytes handed on when ok
		status   int    // answer when not ok
		code     string // its code
	}{
		{name: "AtLimit", body: strings.NewReader("12345678"), tooLarge: apperr.InvalidRequest, wantLen: 8},
		{name: "Empty", body: strings.NewReader(""), tooLarge: apperr.InvalidRequest, wantLen: 0},
		{name: "ErrTooLarge", body: strings.NewReader("123456789"), tooLarge: apperr.InvalidRequest, status: 413, code: "invalid_request"},
		{name: "ErrTooLargeOwnCode", body: strings.NewReader(strings.Repeat("x", 100)), tooLarge: apperr.StageImageTooLarge, status: 413, code: "stage_image_too_large"},
		{name: "TooLargeForGameplay", body: strings.NewReader(strings.Repeat("x", 100)), wantLen: limit + 1},
		{name: "ErrInterrupted", body: io.MultiReader(strings.NewReader("123"), errReader{}), tooLarge: apperr.InvalidRequest, status: 400, code: "invalid_request"},
		{name: "ErrInterruptedForGameplay", body: io.MultiReader(strings.NewReader("123"), errReader{}), status: 400, code: "invalid_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			c, _ := gin.CreateTestContext(rec)
			c.Request = httptest.NewRequest("POST", "/upload", tt.body)
			data, ok := readUpload(c, limit, tt.tooLarge)
			if tt.code == "" {
				if !ok || len(data) != tt.wantLen {
					t.Fatalf("got %d bytes, ok %v (answer %d %s), want %d bytes", len(data), ok, rec.Code, rec.Body, tt.wantLen)
				}
				return
			}
			if ok || rec.Code != tt.status || !strings.Contains(rec.Body.String(), `"code":"`+tt.code+`"`) ||
				tt.status == 413 && !strings.Contains(rec.Body.String(), `"details":{"limit_bytes":8}`) {
				t.Fatalf("got ok %v, %d %s, want %d %s", ok, rec.Code, rec.Body, tt.status, tt.code)
			}
		})
	}
}

// errReader fails like a connection cut mid-body.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }
