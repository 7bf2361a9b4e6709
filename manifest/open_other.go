//go:build !unix

package manifest

// openFlags adds nothing where O_NONBLOCK is not defined; stat refuses a named pipe first.
const openFlags = 0
