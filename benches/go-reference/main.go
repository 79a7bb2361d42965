// go-reference: a stand-in for the Go original, used by scripts/bench only when the
// original itself cannot be installed (`THEIRS_BIN` unset and `go install` refused).
//
// It is written here, from the original's documented behaviour, to do the same work per
// request as the original does:
//
//   - recipes are parsed once at start-up with encoding/json into plain structs;
//   - every request for / executes an html/template over ALL recipes (nothing is cached),
//     each recipe with an inline SVG glass icon, an accordion and an ingredients table
//     (about 3 KB of HTML per recipe), streamed to the client uncompressed;
//   - /static/ serves a CSS framework of the original's size (404,624 bytes, Vanilla 4.15
//     minified) plus small CSS/JS/PNG files, uncompressed, through http.ServeContent;
//   - the query string is ignored (search happens in the browser), so /?q=lime costs the
//     same as /.
//
// The asset bytes are generated filler of the right sizes: an uncompressed server sends
// exactly its file size, whatever the content. Flags mirror the original's (-local, -addr,
// -recipes-file, -hostname, -tsnet-logs).
//
// Like the original, it links tsnet (at the version the original's go.mod pins,
// tailscale.com v1.68.1) and, without -local, serves on the tailnet (see serveTailnet). The benchmark only runs -local, but the tailnet code must be in the
// binary all the same: it is most of the original's size, and Go runs the package
// initialisation of everything linked at start-up in either mode, so start-up time,
// binary size and memory are only comparable with it there.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"html/template"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"tailscale.com/tsnet"
)

type ingredient struct {
	Name    string `json:"name"`
	Measure string `json:"measure"`
	Unit    string `json:"unit"`
}

type drink struct {
	ID          int          `json:"id"`
	Name        string       `json:"name"`
	Base        []string     `json:"base"`
	Glass       []string     `json:"glass"`
	Method      []string     `json:"method"`
	Ice         []string     `json:"ice"`
	Ingredients []ingredient `json:"ingredients"`
	Garnish     []string     `json:"garnish"`
	Notes       string       `json:"notes"`
}

type pageData struct {
	Time   string
	Drinks []drink
}

// Sizes of the original's static files that its page references (bytes).
var assetSizes = map[string]int{
	"css/framework.min.css": 404624,
	"css/overrides.css":     1900,
	"js/search.js":          1500,
	"js/accordion.js":       2300,
	"favicon-32x32.png":     1300,
	"favicon-16x16.png":     700,
}

var assetTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".png": "image/png",
}

// filler returns n bytes of CSS-like text (deterministic).
func filler(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, ".c%d{margin:%dpx %drem;color:#%06x}", i, i%17, i%5, (i*2654435761)&0xffffff)
	}
	return b.Bytes()[:n]
}

// glassIcon renders an inline SVG of roughly the size of the original's icons (~1.5 KB).
func glassIcon(kind int) template.HTML {
	var b strings.Builder
	b.WriteString(`<svg class="glass-icon" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="64" height="64"><path fill="none" stroke="currentColor" stroke-width="2" d="M`)
	for i := 0; i < 90; i++ {
		fmt.Fprintf(&b, "%d.%d %d.%d ", (i*7+kind*13)%100, i%10, (i*11+kind*3)%100, (i+kind)%10)
	}
	b.WriteString(`Z"/></svg>`)
	return template.HTML(b.String())
}

const indexTemplate = `<!DOCTYPE html>
<html lang="en-gb">
  <head>
    <title>Libations</title>
    <meta charset="UTF-8" />
    <meta content="width=device-width, initial-scale=1.0" name="viewport" />
    <meta name="description" content="A home for your cocktail recipes." />
    <link rel="stylesheet" href="static/css/framework.min.css" />
    <link rel="stylesheet" href="static/css/overrides.css" />
    <script src="static/js/search.js"></script>
    <script src="static/js/accordion.js"></script>
    <link rel="icon" type="image/png" sizes="32x32" href="static/favicon-32x32.png" />
    <link rel="icon" type="image/png" sizes="16x16" href="static/favicon-16x16.png" />
  </head>
  <body class="l-site">
    <header class="p-navigation"><div class="p-navigation__row"><div class="p-navigation__banner">
      <a class="p-navigation__link" href="/">Libations</a></div>
      <form class="p-search-box"><input type="search" class="p-search-box__input" name="search" placeholder="Search" autocomplete="on" /></form>
    </div></header>
    <div class="grid p-strip"><div class="row">
{{- range .Drinks }}
<div class="drink">
  <div class="p-media-object--large" data-drink-name="{{ .Name }}">
    {{ icon .Glass }}
    <div class="p-media-object__details">
      <h2 class="p-media-object__title">{{ .Name }}</h2>
      <p class="p-media-object__content">{{ join .Base ", " }}</p>
    </div>
    <div class="u-vertically-center">
      <button id="accordion-{{ .ID }}-tab" class="p-button--base u-toggle is-dense drink-expand-button"
        type="button" aria-controls="accordion-{{ .ID }}" aria-expanded="false">
        <i class="button-icon p-icon--chevron-down"></i>
      </button>
    </div>
  </div>
  <aside class="p-accordion">
    <ul class="p-accordion__list">
      <li class="p-accordion__group">
        <section class="p-accordion__panel" id="accordion-{{ .ID }}" aria-hidden="true">
          <p><strong>Method:</strong> {{ join .Method ", " }}</p>
          {{- if .Ice }}<p><strong>Ice:</strong> {{ join .Ice ", " }}</p>{{ end }}
          {{- if .Garnish }}<p><strong>Garnish:</strong> {{ join .Garnish ", " }}</p>{{ end }}
          {{- if .Notes }}<p><strong>Notes:</strong> {{ .Notes }}</p>{{ end }}
          <table>
            <thead><th>Measure</th><th>Name</th></thead>
            <tbody>
              {{- range .Ingredients }}
              <tr>
                <td>{{ .Measure }} {{ .Unit }}</td>
                <td>{{ .Name }}</td>
              </tr>
              {{- end }}
            </tbody>
          </table>
        </section>
      </li>
    </ul>
  </aside>
</div>
{{- end }}
    </div></div>
    <footer class="l-footer--sticky p-strip--light"><nav class="row" aria-label="Footer">
      <p><small>Last updated <time datetime="{{ .Time }}" title="{{ .Time }}">{{ .Time }}</time></small></p>
    </nav></footer>
  </body>
</html>
`

func main() {
	addr := flag.String("addr", ":8080", "address to listen on with -local")
	local := flag.Bool("local", false, "serve plain HTTP on -addr instead of joining a tailnet")
	hostname := flag.String("hostname", "libations", "the node's name on the tailnet")
	tsnetLogs := flag.Bool("tsnet-logs", true, "include tsnet's logs")
	recipesFile := flag.String("recipes-file", "", "recipes JSON file")
	flag.Parse()
	if *recipesFile == "" {
		log.Fatal("usage: go-reference [-local -addr HOST:PORT] -recipes-file FILE")
	}
	text, err := os.ReadFile(*recipesFile)
	if err != nil {
		log.Fatal(err)
	}
	var drinks []drink
	if err := json.Unmarshal(text, &drinks); err != nil {
		log.Fatal(err)
	}
	icons := make([]template.HTML, 8)
	for i := range icons {
		icons[i] = glassIcon(i)
	}
	funcs := template.FuncMap{
		"join": strings.Join,
		"icon": func(glass []string) template.HTML {
			if len(glass) == 0 {
				return icons[0]
			}
			return icons[len(glass[0])%len(icons)]
		},
	}
	tmpl := template.Must(template.New("index").Funcs(funcs).Parse(indexTemplate))
	assets := map[string][]byte{}
	for name, size := range assetSizes {
		assets[name] = filler(size)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/static/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/static/")
		body, ok := assets[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			w.Header().Set("Content-Type", assetTypes[name[dot:]])
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		data := pageData{Time: time.Now().Format("January 2, 2006 at 15:04 MST"), Drinks: drinks}
		_ = tmpl.Execute(w, data)
	})
	if !*local {
		log.Printf("loaded %d recipes", len(drinks))
		serveTailnet(*hostname, *tsnetLogs, mux)
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("loaded %d recipes; serving on http://%s/", len(drinks), ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}

// serveTailnet is the original's default mode: its own tsnet node, HTTPS on :443 with the
// certificate the tailnet issues, and :80 answering only with a redirect to HTTPS.
func serveTailnet(hostname string, logs bool, app http.Handler) {
	node := &tsnet.Server{Hostname: hostname}
	if !logs {
		node.Logf = func(string, ...any) {}
	}
	defer node.Close()
	plain, err := node.Listen("tcp", ":80")
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		toHTTPS := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://"+r.Host+r.RequestURI, http.StatusMovedPermanently)
		})
		log.Fatal(http.Serve(plain, toHTTPS))
	}()
	secure, err := node.ListenTLS("tcp", ":443")
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("serving on https://%s/ on the tailnet", hostname)
	log.Fatal(http.Serve(secure, app))
}
