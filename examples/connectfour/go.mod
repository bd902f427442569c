module github.com/roomd/roomd/examples/connectfour

go 1.26.8

require github.com/roomd/roomd v0.0.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/text v0.42.0 // indirect
)

replace github.com/roomd/roomd => ../..
