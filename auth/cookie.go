package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
)

// BrowserCookieName is the cookie that carries a browser's user.
const BrowserCookieName = "at_session"

// cookieVersion lets the format change later without misreading old cookies.
const cookieVersion = "v1"

// SignUserID returns the cookie value naming userID, signed with the server
// secret so a browser cannot claim another user's id.
func SignUserID(secret []byte, userID int64) string {
	payload := cookieVersion + "." + strconv.FormatInt(userID, 10)
	return payload + "." + mac(secret, payload)
}

// VerifyUserID returns the user id of a cookie value signed by SignUserID
// with the same secret, comparing the signature in constant time.
func VerifyUserID(secret []byte, value string) (int64, bool) {
	i := strings.LastIndexByte(value, '.')
	if i < 0 {
		return 0, false
	}
	payload, sig := value[:i], value[i+1:]
	if !hmac.Equal([]byte(sig), []byte(mac(secret, payload))) {
		return 0, false
	}
	version, idText, ok := strings.Cut(payload, ".")
	if !ok || version != cookieVersion {
		return 0, false
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}

func mac(secret []byte, payload string) string {
	h := hmac.New(sha256.New, append([]byte("at-browser-cookie:"), secret...))
	h.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
