package webui

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// providerProbeRoutes mounts the narrator settings' probes: the model list
// and the connection test. They are POSTs: the form's unsaved endpoint and
// key travel in the body, never in a URL.
func (s *Server) providerProbeRoutes() {
	n := s.opts.Services.Narrative
	probeCodes := []apperr.Code{apperr.ProviderSettingsInvalid, apperr.ProviderAuthFailed, apperr.ProviderRateLimited, apperr.ProviderRejected,
		apperr.ProviderUnavailable, apperr.ProviderConnectTimeout, apperr.ProviderHeadersTimeout, apperr.ProviderTotalTimeout}
	s.route(apiRoute{Method: "POST", Path: "/api/solo/settings/models", Tag: "solo", Summary: "List the models of the caller's endpoint (GET /models; the body's unsaved values over the saved ones), with context lengths where the endpoint gives them", Request: typeOf[narrative.ProviderProbeInput](), Response: typeOf[narrative.ProviderModelList](), Errors: probeCodes},
		func(c *gin.Context) {
			var in narrative.ProviderProbeInput
			if !bindJSON(c, &in) {
				return
			}
			v, err := n.ListProviderModels(c.Request.Context(), userOf(c), in)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/solo/settings/test", Tag: "solo", Summary: "Connection test: one chat completion of max_tokens 1 to the caller's endpoint and model; reports latency and the answering model", Request: typeOf[narrative.ProviderProbeInput](), Response: typeOf[narrative.ProviderTestResult](), Errors: append(probeCodes, apperr.DemoBudgetExhausted)},
		func(c *gin.Context) {
			var in narrative.ProviderProbeInput
			if !bindJSON(c, &in) {
				return
			}
			v, err := n.TestProvider(c.Request.Context(), userOf(c), in)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
}
