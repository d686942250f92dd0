//go:build unix

package scripting

import (
	"io/fs"
	"syscall"
)

const ownershipChecked = true

// ownerOf returns the uid owning fi.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
