// Package settings is every function's configuration from its
// environment: one struct per function (Runner, TelegramWebhook,
// DiscordInteractions, Gateway, Hooks, Cron), some built from parts they
// share (Config, Secrets, Schedules, Endpoints). Each variable is named
// in its field's env tag and nowhere else in the functions; Load, the one
// place a function reads its environment, fills a struct from them and
// Validate checks it. A test holds every struct to the environment
// template.yaml gives its function.
//
// The tag is `env:"NAME[,required][,default=V][,min=V]"`:
//   - required: the variable must be set (Validate names it);
//   - default: the value when the variable is unset or "";
//   - min: the least value of an int or time.Duration field (default 0:
//     a negative number or duration is refused).
//
// A field may also carry `secret:"<name>"`: its variable names the SSM
// parameter holding that secret (shared/secret), never the value.
//
// Field types are string, bool (strconv.ParseBool), int, time.Duration
// (a Go duration like 30s) and []string (a comma list; blanks dropped). A
// struct field without an env tag is a part: its fields are read in turn.
package settings

import (
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Validator is a function's settings: Validate returns an error naming
// the first variable that is missing or wrong, or nil.
type Validator interface {
	Validate() error
}

// Load fills the settings dst points to from the process environment, then
// validates them. A variable set to "" counts as unset. The error names
// the variable; it never holds a value longer than the one given (no
// variable holds a secret: secrets are SSM parameter names).
func Load(dst Validator) error {
	return load(dst, os.Getenv)
}

// load is Load over getenv.
func load(dst Validator, getenv func(string) string) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("settings: Load wants a pointer to a struct, not %T", dst)
	}
	err := walk(v.Elem(), func(f field) error { return f.decode(getenv(f.Name)) })
	if err != nil {
		return err
	}
	return dst.Validate()
}

// Var describes one variable a settings struct reads.
type Var struct {
	Name     string
	Required bool
	Default  string
	Min      string
	// Secret is the secret whose SSM parameter the variable names ("":
	// none).
	Secret string
}

// Vars lists the variables the settings struct s (or a pointer to one)
// reads, in field order.
func Vars(s any) []Var {
	var out []Var
	err := walk(structOf(s), func(f field) error {
		out = append(out, f.Var)
		return nil
	})
	if err != nil {
		panic(err) // a malformed tag: a programming error the tests catch
	}
	return out
}

// SecretParameters maps each secret s names a parameter for (a field
// tagged secret whose variable is set) to that parameter: what
// ssmparam.NewSecrets reads.
func SecretParameters(s any) map[string]string {
	out := map[string]string{}
	_ = walk(structOf(s), func(f field) error {
		if f.Secret != "" && f.v.String() != "" {
			out[f.Secret] = f.v.String()
		}
		return nil
	})
	return out
}

// checkTags enforces the tags' rules on s (a struct or a pointer to one):
// every required variable set, every number at least its minimum. Each
// settings struct's Validate starts with it.
func checkTags(s any) error {
	return walk(structOf(s), field.check)
}

func structOf(s any) reflect.Value {
	v := reflect.ValueOf(s)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	return v
}

// field is one tagged field of a settings struct.
type field struct {
	Var
	v reflect.Value
}

var durationType = reflect.TypeFor[time.Duration]()

// walk calls fn on every tagged field of the struct v, parts included.
func walk(v reflect.Value, fn func(field) error) error {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("env")
		if !ok {
			if sf.Type.Kind() != reflect.Struct {
				return fmt.Errorf("settings: %s.%s has no env tag", t.Name(), sf.Name)
			}
			if err := walk(v.Field(i), fn); err != nil {
				return err
			}
			continue
		}
		f, err := parseTag(tag)
		if err != nil {
			return fmt.Errorf("settings: %s.%s: %w", t.Name(), sf.Name, err)
		}
		f.Secret, f.v = sf.Tag.Get("secret"), v.Field(i)
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// parseTag reads `NAME[,required][,default=V][,min=V]`.
func parseTag(tag string) (field, error) {
	name, opts, _ := strings.Cut(tag, ",")
	f := field{Var: Var{Name: name}}
	if name == "" {
		return f, fmt.Errorf("env tag %q names no variable", tag)
	}
	for opts != "" {
		var opt string
		opt, opts, _ = strings.Cut(opts, ",")
		switch key, val, _ := strings.Cut(opt, "="); key {
		case "required":
			f.Required = true
		case "default":
			f.Default = val
		case "min":
			f.Min = val
		default:
			return f, fmt.Errorf("env tag %q: unknown option %q", tag, opt)
		}
	}
	return f, nil
}

// decode sets the field from raw, the variable's value ("": unset).
func (f field) decode(raw string) error {
	if raw == "" {
		raw = f.Default
	}
	if raw == "" {
		return nil
	}
	switch {
	case f.v.Type() == durationType:
		d, err := time.ParseDuration(raw)
		if err != nil {
			return fmt.Errorf("environment variable %s: %q is not a duration like 30s", f.Name, raw)
		}
		f.v.SetInt(int64(d))
	case f.v.Kind() == reflect.String:
		f.v.SetString(raw)
	case f.v.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return fmt.Errorf("environment variable %s: %q is not true or false", f.Name, raw)
		}
		f.v.SetBool(b)
	case f.v.Kind() == reflect.Int:
		n, err := strconv.Atoi(raw)
		if err != nil {
			return fmt.Errorf("environment variable %s: %q is not a whole number >= %s", f.Name, raw, f.minimum())
		}
		f.v.SetInt(int64(n))
	case f.v.Kind() == reflect.Slice && f.v.Type().Elem().Kind() == reflect.String:
		var list []string
		for _, item := range strings.Split(raw, ",") {
			if item = strings.TrimSpace(item); item != "" {
				list = append(list, item)
			}
		}
		f.v.Set(reflect.ValueOf(list))
	default:
		return fmt.Errorf("settings: %s: unsupported field type %s", f.Name, f.v.Type())
	}
	return nil
}

func (f field) minimum() string {
	if f.Min == "" {
		return "0"
	}
	return f.Min
}

// check is checkTags' rule for one field.
func (f field) check() error {
	if f.Required && f.v.IsZero() {
		if f.Secret != "" {
			return fmt.Errorf("environment variable %s is required (the SSM parameter holding the secret %s)", f.Name, f.Secret)
		}
		return fmt.Errorf("environment variable %s is required", f.Name)
	}
	switch {
	case f.v.Type() == durationType:
		least, err := time.ParseDuration(f.minimum())
		if err != nil {
			return fmt.Errorf("settings: %s: min %q is not a duration", f.Name, f.Min)
		}
		if d := time.Duration(f.v.Int()); d < least {
			return fmt.Errorf("environment variable %s: %s is not a duration >= %s", f.Name, d, least)
		}
	case f.v.Kind() == reflect.Int:
		least, err := strconv.Atoi(f.minimum())
		if err != nil {
			return fmt.Errorf("settings: %s: min %q is not a whole number", f.Name, f.Min)
		}
		if n := int(f.v.Int()); n < least {
			return fmt.Errorf("environment variable %s: %d is not a whole number >= %d", f.Name, n, least)
		}
	}
	return nil
}
