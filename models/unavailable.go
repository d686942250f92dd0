package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// Unavailable marks an error that means "the database cannot be reached
// now" as database_unavailable, so every edge answers 503 with Retry-After
// instead of a 500: the request was fine, the storage was not there.
// Other errors pass through unchanged.
func Unavailable(err error) error {
	if err == nil || !connectionLost(err) {
		return err
	}
	if _, ok := apperr.As(err); ok {
		return err
	}
	return apperr.Wrap(err, apperr.DatabaseUnavailable, "The database is unavailable right now; try again shortly.")
}

// connectionLost reports whether err is the database being out of reach
// (refused, reset, closed, shutting down), not a bad statement.
func connectionLost(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08 connection exceptions; 57P01-03 the server shutting
		// down or starting up.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	var connectErr *pgconn.ConnectError
	var netErr *net.OpError
	if errors.As(err, &connectErr) || errors.As(err, &netErr) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"conn closed", "connection refused", "connection reset", "broken pipe", "unexpected EOF",
		"server closed the connection", "failed to connect", "unable to open database file", "sql: database is closed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// markUnavailable turns a statement's connection failure into
// database_unavailable, for every kind of statement.
func markUnavailable(db *gorm.DB) {
	if db.Error != nil {
		db.Error = Unavailable(db.Error)
	}
}

func registerUnavailable(db *gorm.DB) error {
	return afterEveryStatement(db, "unavailable", markUnavailable)
}
