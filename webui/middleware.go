package webui

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/models/apperr"
)

const requestIDKey = "request_id"

// requestID gives every request an ID, echoed in X-Request-ID and logs.
func (s *Server) requestID(c *gin.Context) {
	var b [8]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	c.Set(requestIDKey, id)
	c.Header("X-Request-ID", id)
	c.Next()
}

func loggerOf(c *gin.Context) *slog.Logger {
	l := slog.Default()
	if s, ok := c.Get("logger"); ok {
		l = s.(*slog.Logger)
	}
	return l.With(slog.String(requestIDKey, c.GetString(requestIDKey)))
}

// accessLog logs one line per request. It logs the path without the query
// string and no header at all: bearer tokens and cookies never reach logs.
func (s *Server) accessLog(c *gin.Context) {
	c.Set("logger", s.logger)
	start := time.Now()
	c.Next()
	s.logger.Info("http request",
		slog.String(requestIDKey, c.GetString(requestIDKey)),
		slog.String("method", c.Request.Method),
		slog.String("path", c.Request.URL.Path),
		slog.Int("status", c.Writer.Status()),
		slog.Int64("duration_ms", time.Since(start).Milliseconds()),
		slog.String("client_ip", c.ClientIP()),
	)
}

// recovered turns a panic into an internal error response.
func (s *Server) recovered(c *gin.Context, v any) {
	respondError(c, apperr.Wrap(fmt.Errorf("panic: %v", v), apperr.Internal, "Internal error."))
}
