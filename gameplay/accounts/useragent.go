package accounts

import "strings"

// Client is what the edge knows of the browser a session starts or
// resumes in. Only the family of its User-Agent (browser and operating
// system, see UserAgentFamily) is ever stored, never the header itself.
type Client struct {
	UserAgent string
}

// maxUserAgentScan bounds how much of a User-Agent header is looked at;
// every real one names its browser and system well before.
const maxUserAgentScan = 512

// uaRule is one name a User-Agent may contain and the family it means.
// The first matching rule of a list wins, so the lists are ordered from
// the most specific token to the most general: Edge and Opera also say
// "Chrome", Chrome also says "Safari", Android also says "Linux".
type uaRule struct{ token, name string }

var uaBrowsers = []uaRule{
	{"Edg/", "Edge"}, {"EdgA/", "Edge"}, {"EdgiOS/", "Edge"},
	{"OPR/", "Opera"}, {"Opera", "Opera"},
	{"SamsungBrowser/", "Samsung Internet"},
	{"Vivaldi/", "Vivaldi"},
	{"YaBrowser/", "Yandex Browser"},
	{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"},
	{"CriOS/", "Chrome"}, {"HeadlessChrome/", "Chrome"}, {"Chromium/", "Chromium"}, {"Chrome/", "Chrome"},
	{"Safari/", "Safari"},
	{"curl/", "curl"},
}

var uaSystems = []uaRule{
	{"Android", "Android"},
	{"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"iPod", "iOS"},
	{"CrOS", "ChromeOS"},
	{"Windows", "Windows"},
	{"Macintosh", "macOS"}, {"Mac OS X", "macOS"},
	{"FreeBSD", "FreeBSD"}, {"OpenBSD", "OpenBSD"},
	{"Linux", "Linux"}, {"X11", "Linux"},
}

// UserAgentFamily returns the browser and the operating system a
// User-Agent header names ("Chrome", "Android"), each one of a small fixed
// set of names, or "" when it names none this knows. Nothing of the header
// itself comes back, so storing the answer stores no fingerprint.
func UserAgentFamily(userAgent string) (browser, system string) {
	if len(userAgent) > maxUserAgentScan {
		userAgent = userAgent[:maxUserAgentScan]
	}
	return firstRule(uaBrowsers, userAgent), firstRule(uaSystems, userAgent)
}

func firstRule(rules []uaRule, s string) string {
	for _, r := range rules {
		if strings.Contains(s, r.token) {
			return r.name
		}
	}
	return ""
}
