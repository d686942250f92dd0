package accounts_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/accounts"
)

func TestUserAgentFamily(t *testing.T) {
	for _, tt := range []struct {
		name, ua, browser, system string
	}{
		{"ChromeAndroid", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36", "Chrome", "Android"},
		{"FirefoxLinux", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox", "Linux"},
		{"FirefoxUbuntu", "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0", "Firefox", "Linux"},
		{"SafariIPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "Safari", "iOS"},
		{"SafariIPad", "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "Safari", "iPadOS"},
		{"ChromeIOS", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1", "Chrome", "iOS"},
		{"FirefoxIOS", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/127.0 Mobile/15E148 Safari/605.1.15", "Firefox", "iOS"},
		{"SafariMac", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15", "Safari", "macOS"},
		{"ChromeMac", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", "Chrome", "macOS"},
		{"EdgeWindows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.68", "Edge", "Windows"},
		{"ChromeWindows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", "Chrome", "Windows"},
		{"OperaWindows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 OPR/111.0.0.0", "Opera", "Windows"},
		{"SamsungAndroid", "Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36", "Samsung Internet", "Android"},
		{"ChromeOS", "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", "Chrome", "ChromeOS"},
		{"HeadlessChromeLinux", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/139.0.0.0 Safari/537.36", "Chrome", "Linux"},
		{"Curl", "curl/8.5.0", "curl", ""},
		{"Empty", "", "", ""},
		{"Unknown", "SomeBot/1.0 (+https://example.com/bot)", "", ""},
		// A name past the first 512 bytes is not looked for.
		{"LongPadding", strings.Repeat("x", 600) + "Firefox/1 Windows", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, s := accounts.UserAgentFamily(tt.ua)
			if b != tt.browser || s != tt.system {
				t.Fatalf("got %q on %q, want %q on %q", b, s, tt.browser, tt.system)
			}
		})
	}
}

// FuzzUserAgentFamily: any header gives names from the fixed sets (or ""),
// never a piece of the header.
func FuzzUserAgentFamily(f *testing.F) {
	f.Add("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36")
	f.Add("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
	f.Add("Edg/OPR/Firefox/iPhone\x00\xff")
	f.Add("")
	browsers := []string{"", "Edge", "Opera", "Samsung Internet", "Vivaldi", "Yandex Browser", "Firefox", "Chrome", "Chromium", "Safari", "curl"}
	systems := []string{"", "Android", "iOS", "iPadOS", "ChromeOS", "Windows", "macOS", "FreeBSD", "OpenBSD", "Linux"}
	f.Fuzz(func(t *testing.T, ua string) {
		b, s := accounts.UserAgentFamily(ua)
		if !slices.Contains(browsers, b) || !slices.Contains(systems, s) {
			t.Fatalf("%q gave %q on %q, outside the fixed names", ua, b, s)
		}
	})
}
