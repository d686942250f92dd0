package webui

import (
	"net"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// defaultReportDays is the dashboard's period unless ?days= says otherwise.
const defaultReportDays = 30

// operatorRoutes mounts the operator's dashboard data: the anonymous
// counters as a report (JSON) and as CSV. Both are one gameplay call,
// which decides who is an operator from the account's row; the same
// report `adventure-table stats` prints.
func (s *Server) operatorRoutes() {
	errs := []apperr.Code{apperr.OperatorRequired, apperr.InvalidRequest}
	s.route(apiRoute{Method: "GET", Path: "/api/operator/stats", Tag: "meta", Summary: "The operator's dashboard: visits and the funnel per day, failures by code, time to first token, tokens by who pays, rate-limit refusals, AI seats, for the last days (default 30, at most 366). Operators only: hosted, an account named in AT_ADMIN_EMAILS; local, this machine",
		Query: []string{"days"}, Response: typeOf[analytics.Report](), Errors: errs},
		func(c *gin.Context) {
			rep, ok := s.operatorReport(c)
			if ok {
				c.JSON(http.StatusOK, rep)
			}
		}, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/operator/stats.csv", Tag: "meta", Summary: "The dashboard's days as CSV, one row per day, served as an attachment (operators only)",
		Query: []string{"days"}, RawResponse: []string{"text/csv"}, Errors: errs},
		func(c *gin.Context) {
			rep, ok := s.operatorReport(c)
			if !ok {
				return
			}
			c.Header("Content-Type", "text/csv; charset=utf-8")
			c.Header("Content-Disposition", `attachment; filename="adventure-table-stats-`+rep.To+`.csv"`)
			c.Status(http.StatusOK)
			if err := rep.WriteCSV(c.Writer); err != nil {
				s.logger.Warn("stats CSV not written whole", "error", err)
			}
		}, s.identify)
}

// operatorReport reads ?days= and asks gameplay for the report as the
// caller; an error is answered here.
func (s *Server) operatorReport(c *gin.Context) (analytics.Report, bool) {
	days, ok := queryInt(c, "days")
	if !ok {
		return analytics.Report{}, false
	}
	if days == 0 {
		days = defaultReportDays
	}
	if days < 1 || days > analytics.MaxReportDays {
		respondError(c, apperr.E(apperr.InvalidRequest, "days is from 1 to %d.", analytics.MaxReportDays).WithField("days", "from 1 to 366"))
		return analytics.Report{}, false
	}
	rep, err := s.opts.Services.OperatorReport(c.Request.Context(), callerOf(c).UserID, fromThisMachine(c), int(days))
	if err != nil {
		respondError(c, err)
		return analytics.Report{}, false
	}
	return rep, true
}

// fromThisMachine says whether the request came from a loopback address
// (through the trusted proxies only): in local mode, the person at the
// machine running the server, not a friend on the network.
func fromThisMachine(c *gin.Context) bool {
	ip := net.ParseIP(c.ClientIP())
	return ip != nil && ip.IsLoopback()
}
