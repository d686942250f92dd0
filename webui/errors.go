package webui

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// statusByKind is the one place an HTTP status is chosen for an error.
var statusByKind = map[apperr.Kind]int{
	apperr.KindInvalid:      http.StatusBadRequest,
	apperr.KindNotFound:     http.StatusNotFound,
	apperr.KindConflict:     http.StatusConflict,
	apperr.KindUnauthorized: http.StatusUnauthorized,
	apperr.KindForbidden:    http.StatusForbidden,
	apperr.KindUnavailable:  http.StatusServiceUnavailable,
	apperr.KindRateLimited:  http.StatusTooManyRequests,
	apperr.KindInternal:     http.StatusInternalServerError,
}

// statusByCode overrides the kind's status where HTTP has a better word.
var statusByCode = map[apperr.Code]int{
	apperr.MethodNotAllowed:   http.StatusMethodNotAllowed,
	apperr.StageImageTooLarge: http.StatusRequestEntityTooLarge,
}

// statusOf returns the HTTP status for an error code.
func statusOf(code apperr.Code) int {
	if st, ok := statusByCode[code]; ok {
		return st
	}
	return statusByKind[code.Kind()]
}

// statusOfError is statusOf for err, except that a body over its size
// limit answers 413 whatever code it carries (invalid_request), as an
// oversized image does.
func statusOfError(err error) int {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return http.StatusRequestEntityTooLarge
	}
	return statusOf(apperr.CodeOf(err))
}

// ErrorBody is the JSON body of every failed API call.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail carries the stable code clients branch on.
type ErrorDetail struct {
	Code    string            `json:"code" jsonschema:"stable snake_case error code"`
	Message string            `json:"message" jsonschema:"English text; clients show their own text for the code"`
	Fields  map[string]string `json:"fields,omitempty" jsonschema:"problems per input field"`
	Details map[string]any    `json:"details,omitempty" jsonschema:"machine-readable facts about the error"`
}

// respondError writes err as JSON. A cancelled request gets 499 and a
// deadline 408, with no body. Internal errors are logged once, here, with
// the request ID; their cause never reaches the client.
func respondError(c *gin.Context, err error) {
	if apperr.IsCanceled(err) {
		status := 499 // client closed the request (nginx's convention)
		if c.Request.Context().Err() == nil {
			status = http.StatusRequestTimeout
		}
		c.AbortWithStatus(status)
		return
	}
	if apperr.CodeOf(err) == apperr.Internal {
		loggerOf(c).Error("request failed", slog.String("error", err.Error()))
	}
	setRetryAfter(c.Writer.Header(), err)
	c.AbortWithStatusJSON(statusOfError(err), errorBodyOf(err))
}

// errorBodyOf is the body every error answer carries: the stable code, the
// message, and for a refusal (never an internal error) its fields and
// details.
func errorBodyOf(err error) ErrorBody {
	code := apperr.CodeOf(err)
	body := ErrorBody{Error: ErrorDetail{Code: string(code), Message: apperr.MessageOf(err)}}
	if e, ok := apperr.As(err); ok && code != apperr.Internal {
		body.Error.Fields, body.Error.Details = e.Fields, e.Details
	}
	return body
}

// retryAfterSeconds is how long a client should wait before retrying while
// the database is out of reach.
const retryAfterSeconds = "5"

// setRetryAfter tells a client when to retry an answer that says "not now":
// the database's outage, or a limit's own wait (details.retry_after_seconds).
func setRetryAfter(h http.Header, err error) {
	code := apperr.CodeOf(err)
	if code == apperr.DatabaseUnavailable {
		h.Set("Retry-After", retryAfterSeconds)
	}
	if code.Kind() == apperr.KindRateLimited {
		wait := 1
		if e, ok := apperr.As(err); ok {
			if v, ok := e.Details["retry_after_seconds"].(int); ok && v > 0 {
				wait = v
			}
		}
		h.Set("Retry-After", strconv.Itoa(wait))
	}
}

// writeJSONError answers outside Gin (middleware wrapping the engine).
func writeJSONError(w http.ResponseWriter, err error) {
	code := apperr.CodeOf(err)
	setRetryAfter(w.Header(), err)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(statusOf(code))
	json.NewEncoder(w).Encode(ErrorBody{Error: ErrorDetail{Code: string(code), Message: apperr.MessageOf(err)}})
}
