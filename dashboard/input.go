package dashboard

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"unicode/utf8"
)

// maxBody is the most a request body (a form) may hold.
const maxBody = 1 << 20

// inputProblem says what is wrong with a request's text before any handler reads it: a query
// parameter, form field (name or value) or path that holds a control character or is not UTF-8.
// Every handler reads its parameters after this check, so none of them passes such a value to
// the database (PostgreSQL refuses NUL in text outright, and nothing the dashboard takes is
// multi-line text, so tab and newline are refused too). It parses the query and the form itself;
// the status is 400, or 413 for a body over maxBody.
func inputProblem(w http.ResponseWriter, r *http.Request) (int, string) {
	if msg := textProblem("the path", r.URL.Path); msg != "" {
		return http.StatusBadRequest, msg
	}
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return http.StatusBadRequest, "The query string is malformed (" + err.Error() + "): nothing was done."
	}
	if msg := valuesProblem("query parameter", query); msg != "" {
		return http.StatusBadRequest, msg
	}
	if r.Body == nil || r.Body == http.NoBody {
		return 0, ""
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		err = r.ParseMultipartForm(maxBody)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return http.StatusRequestEntityTooLarge, fmt.Sprintf("The form is larger than %d bytes: nothing was done.", maxBody)
		}
		return http.StatusBadRequest, "The form is malformed (" + err.Error() + "): nothing was done."
	}
	if msg := valuesProblem("form field", r.PostForm); msg != "" {
		return http.StatusBadRequest, msg
	}
	if r.MultipartForm != nil {
		if msg := valuesProblem("form field", r.MultipartForm.Value); msg != "" {
			return http.StatusBadRequest, msg
		}
		for name, files := range r.MultipartForm.File {
			if len(files) > 0 {
				return http.StatusBadRequest, fmt.Sprintf("The form carries a file (%q): the dashboard takes none; nothing was done.", name)
			}
		}
	}
	return 0, ""
}

// valuesProblem checks every name and value of vs, in name order (so the message is stable).
func valuesProblem(what string, vs map[string][]string) string {
	names := make([]string, 0, len(vs))
	for k := range vs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if msg := textProblem(fmt.Sprintf("the name of a %s", what), k); msg != "" {
			return msg
		}
		for _, v := range vs[k] {
			if msg := textProblem(fmt.Sprintf("%s %q", what, k), v); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// textProblem says why s cannot be taken as text: it is not UTF-8, or it holds a control
// character (U+0000–U+001F, U+007F–U+009F: NUL, tab, newline and DEL included). "" when it can.
func textProblem(what, s string) string {
	if !utf8.ValidString(s) {
		return fmt.Sprintf("%s is not valid UTF-8: nothing was done.", capitalise(what))
	}
	for i, c := range s {
		if isControl(c) {
			return fmt.Sprintf("%s holds the control character U+%04X at byte %d: the dashboard refuses control characters (NUL, tab, newline, DEL …) in every parameter and form field; nothing was done.",
				capitalise(what), c, i)
		}
	}
	return ""
}

func isControl(c rune) bool { return c < 0x20 || (c >= 0x7f && c <= 0x9f) }

func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
