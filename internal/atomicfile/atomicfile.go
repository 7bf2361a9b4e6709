// Package atomicfile writes a file whole or not at all, and never through a link: a report
// written where a link to another file lies replaces the link, not that file. It does not
// create directories.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to a new file beside path, created exclusively (O_EXCL, so never through a
// link or onto a file that exists) with perm less the umask, syncs it and renames it to path.
// A link at path is replaced, its target left as it was; a reader of path sees the old file or
// the new one, never a part. On an error the new file is removed and path left as it was.
func Write(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var (
		f   *os.File
		tmp string
		err error
	)
	for i := range 100 {
		tmp = filepath.Join(dir, fmt.Sprintf(".%s.%d-%d.tmp", base, os.Getpid(), i))
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp) //nolint:errcheck // the error that matters is err
		return err
	}
	return nil
}
