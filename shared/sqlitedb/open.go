package sqlitedb

import (
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
)

// open opens the store at path for reading without writing anything
// beside it. SQLite, even read-only, creates the -wal and -shm files of a
// WAL database it opens in place, and immutable mode ignores a WAL file's
// changes. So a store whose WAL file is not empty (the upstream gateway
// running, or stopped without a checkpoint) is copied with that WAL file
// into a temporary directory and opened there; any other is opened
// read-only and immutable in place. done closes the database and removes
// the copy. A missing file is an error (nothing is created).
func open(path string) (db *sql.DB, done func(), err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	at, tmp := path, ""
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		if tmp, err = os.MkdirTemp("", "zero-import-*"); err != nil {
			return nil, nil, fmt.Errorf("copy %s: %w", path, err)
		}
		at = filepath.Join(tmp, filepath.Base(path))
		if err := copyFile(path, at); err != nil {
			os.RemoveAll(tmp)
			return nil, nil, err
		}
		if err := copyFile(path+"-wal", at+"-wal"); err != nil {
			os.RemoveAll(tmp)
			return nil, nil, err
		}
	}
	dsn := "file:" + (&url.URL{Path: at}).EscapedPath() + "?mode=ro&immutable=1&_pragma=query_only(1)"
	if tmp != "" {
		dsn = "file:" + (&url.URL{Path: at}).EscapedPath() + "?_pragma=query_only(1)" // the copy's WAL is replayed there
	}
	db, err = sql.Open("sqlite", dsn)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, func() {
		db.Close()
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}, nil
}

// copyFile copies src to dst (created, mode 0600).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return nil
}
