#!/bin/sh
# api-tls.sh: the whole of api.sh over HTTPS (a certificate made by the test).
SCHEME=https
export SCHEME
exec sh "${top_srcdir:-.}/tests/relayd/api.sh"
