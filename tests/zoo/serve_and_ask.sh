#!/usr/bin/env bash
# llama-server serving two requests side by side, as one command (for llmscope dump and spread):
#   serve_and_ask.sh SERVER [SERVER ARGS...]
# The shell becomes the server (exec: a shell passes llmscope's probe on, so the probe is in it);
# a background child waits for /health, asks slot 0 for a long greedy completion and, once its
# first token is out, slot 1 for a short one (the server computes slot 1's prompt in a batch with
# slot 0's next token), then stops the server with SIGTERM. The server listens on a free port of
# 127.0.0.1; the prompt is "hello world", computed afresh (cache_prompt false).
set -u
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
server=$$
completion() { # SLOT TOKENS STREAM: the request on fd 3
  local body="{\"prompt\":\"hello world\",\"n_predict\":$2,\"temperature\":0,\"id_slot\":$1,\"cache_prompt\":false,\"ignore_eos\":true,\"stream\":$3}"
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'POST /completion HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
    "${#body}" "$body" >&3
}
(
  for _ in $(seq 6000); do # the model loads: 503 until then
    if exec 4<>"/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
      printf 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&4
      IFS= read -r status <&4
      exec 4<&-
      [[ $status == "HTTP/1.1 200"* ]] && break
    fi
    sleep 0.01
  done
  completion 0 200 true || exit 1
  exec 5<&3 # slot 0's answer stays open on fd 5
  while IFS= read -r line <&5 && [[ $line != data:* ]]; do :; done
  completion 1 4 false || exit 1
  second=$(cat <&3)
  rest=$(cat <&5)
  kill -TERM "$server"
  [[ $second == *'"tokens_predicted":4'* && $rest == *'"stop":true'* ]]
) &
exec "$@" --host 127.0.0.1 --port "$port"
