package webui

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/klauspost/compress/gzhttp"
)

// Compressed answers come two ways. The web app's files are compressed once,
// at build time: webui/app/scripts/compress.mjs writes name.br and name.gz
// next to each file worth it, and serveFile sends the variant the request
// accepts. JSON answers are gzipped on the fly (compressAPI), above a
// minimum size.

// precompressed lists the build's variants, best first.
var precompressed = []struct{ coding, ext string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// minCompressSize is the smallest answer worth gzipping: below it the
// header and the CPU cost more than the bytes saved.
const minCompressSize = 1024

// compressAPI gzips the JSON and text answers of next that reach
// minCompressSize when the request accepts gzip. Only gzip: every browser
// speaks it, and the API's answers are small next to the app's files.
// Event streams pass through untouched (streaming routes are not wrapped at
// all, see Server.streams; the content-type filter is the second guard),
// and so do images and any answer that already has a Content-Encoding.
func compressAPI(next http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(minCompressSize),
		gzhttp.EnableZstd(false),
		gzhttp.ContentTypes([]string{"application/json", "application/problem+json", "text/plain", "text/html"}),
		// A compressed answer is another representation: it must not
		// carry the ETag of the identity one (RFC 9110, 8.8.3).
		gzhttp.SuffixETag("-gzip"),
	)
	if err != nil {
		panic(err) // the options above are constant and valid
	}
	return wrap(next)
}

// acceptedQ is the q-value the Accept-Encoding header gives coding (RFC
// 9110, 12.5.3): its own entry, else the "*" entry, else 0. Identity is
// acceptable unless refused, but a header that names codings wants them:
// unnamed, identity gets a weight below any a header can write (q has
// three decimals), so it is chosen only when nothing named is acceptable.
// "x-gzip" is gzip.
func acceptedQ(header, coding string) float64 {
	own, star := -1.0, -1.0
	for entry := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(entry, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "x-gzip" {
			name = "gzip"
		}
		if name != coding && name != "*" {
			continue
		}
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, _ := strings.Cut(p, "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || f < 0 || f > 1 {
					f = 0 // a malformed weight accepts nothing
				}
				q = f
			}
		}
		if name == coding {
			own = max(own, q)
		} else {
			star = max(star, q)
		}
	}
	switch {
	case own >= 0:
		return own
	case star >= 0:
		return star
	case coding == "identity":
		return identityUnnamed
	}
	return 0
}

// identityUnnamed is the weight of identity when the header does not name it.
const identityUnnamed = 1e-6

// negotiate picks the coding of name to send for the Accept-Encoding
// header: the highest q-value, and on a tie the smaller (brotli, then
// gzip, then identity, which is also what is sent when nothing else is
// acceptable, as RFC 9110 allows). It returns the variant's file name ("" for
// identity) and coding, and whether name has any variant at all (then the
// answer varies by the header).
func (s *Server) negotiate(name, header string) (file, coding string, offered bool) {
	best := 0.0
	for _, pc := range precompressed {
		if _, err := fs.Stat(s.app, name+pc.ext); err != nil {
			continue
		}
		offered = true
		if q := acceptedQ(header, pc.coding); q > best {
			file, coding, best = name+pc.ext, pc.coding, q
		}
	}
	if file != "" && acceptedQ(header, "identity") > best {
		return "", "", offered
	}
	return file, coding, offered
}

// serveFile sends the app's file name with the given Cache-Control, in the
// best coding the request accepts. It reports false, having sent nothing,
// when the app has no such file. Conditional and range requests work on
// the variant sent: each variant has its own strong ETag (a hash of its
// bytes), so a cached gzip body never validates against the brotli one.
func (s *Server) serveFile(c *gin.Context, name, cacheControl string) bool {
	if st, err := fs.Stat(s.app, name); err != nil || st.IsDir() {
		return false
	}
	file, coding, offered := s.negotiate(name, c.Request.Header.Get("Accept-Encoding"))
	if file == "" {
		file = name
	}
	data, err := fs.ReadFile(s.app, file)
	if err != nil {
		return false
	}
	h := c.Writer.Header()
	h.Set("Cache-Control", cacheControl)
	if offered && !varies(h) {
		h.Add("Vary", "Accept-Encoding")
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		// Sniff the identity bytes, never the compressed ones.
		plain := data
		if coding != "" {
			if plain, err = fs.ReadFile(s.app, name); err != nil {
				return false
			}
		}
		ctype = http.DetectContentType(plain)
	}
	h.Set("Content-Type", ctype)
	h.Set("ETag", s.etagOf(file, data))
	if coding != "" {
		h.Set("Content-Encoding", coding)
		// ServeContent leaves the length out once a coding is set (it
		// expects on-the-fly compression); these bytes are final.
		h.Set("Content-Length", strconv.Itoa(len(data)))
	}
	http.ServeContent(c.Writer, c.Request, name, time.Time{}, bytes.NewReader(data))
	return true
}

// varies reports whether h already lists Accept-Encoding in Vary (compressAPI
// adds it to everything under /api/, which includes /api/docs).
func varies(h http.Header) bool {
	for _, v := range h.Values("Vary") {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), "Accept-Encoding") {
				return true
			}
		}
	}
	return false
}

// etagOf is a strong validator of the exact bytes of the app's file name:
// a hash, kept once computed (the app's files never change).
func (s *Server) etagOf(name string, data []byte) string {
	if tag, ok := s.etags.Load(name); ok {
		return tag.(string)
	}
	sum := sha256.Sum256(data)
	tag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	s.etags.Store(name, tag)
	return tag
}
