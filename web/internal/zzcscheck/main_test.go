package cscheck
import ("fmt";"net/http/httptest";"github.com/roomd/roomd/web";"io";"strings";"testing")
func TestX(t *testing.T){ h:=web.Handler(); for _,p:= range []string{"/play/minesweeper","/play/baba/","/play/nope"} { r:=httptest.NewRecorder(); h.ServeHTTP(r, httptest.NewRequest("GET",p,nil)); b,_:=io.ReadAll(r.Body); s:=string(b); i:=strings.Index(s,"</head>"); fmt.Println(p, r.Code, r.Header().Get("ETag")); fmt.Println(s[max(0,i-650):i]) } }
