"""Log-likelihood request construction of lm-eval 0.4.12's `local-completions` against a BOS-adding tokenizer
(issue 44 item 5), with a loopback stand-in for vLLM's /v1/completions.

The stand-in does what vLLM's OpenAI server does with a completion request, as read in vLLM's
entrypoints/openai protocol (`CompletionRequest.add_special_tokens` default True: "special tokens (e.g. BOS) will be
added to the prompt"): a text prompt is tokenized with add_special_tokens=True (the tokenizer's BOS added), a prompt
of token ids is taken as is; with `echo` and `max_tokens: 1` it returns one `token_logprobs` entry per prompt token
(None for the first) plus the generated one. Each token's log-probability is -(its position + 1) / 100, so a sum
names the positions lm-eval added up.

The truth: the continuation's tokens scored after exactly one BOS and the context. lm-eval's own LocalCompletionsAPI
(lm_eval/models/openai_completions.py, api_models.py: tok_encode, batch_loglikelihood_requests, parse_logprobs
`token_logprobs[ctxlen:-1]`) builds the request and sums.

Usage: python loglikelihood_bos.py <tokenizer_dir> '<model_args extra>'   e.g. 'tokenized_requests=False'
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from transformers import AutoTokenizer

TOK = AutoTokenizer.from_pretrained(sys.argv[1])


def lp(position):
  return -(position + 1) / 100


class Handler(BaseHTTPRequestHandler):
  def log_message(self, *a):
    pass

  def do_POST(self):
    body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
    prompts = body["prompt"]
    if isinstance(prompts, str) or (prompts and isinstance(prompts[0], int)):
      prompts = [prompts]
    choices = []
    for i, p in enumerate(prompts):
      ids = TOK(p, add_special_tokens=True).input_ids if isinstance(p, str) else list(p)
      ids = ids + [TOK.eos_token_id]  # the one generated token
      token_logprobs = [None] + [lp(k) for k in range(1, len(ids))]
      top = [None] + [{TOK.decode([ids[k]]): lp(k)} for k in range(1, len(ids))]
      choices.append({"index": i, "text": "", "logprobs": {"tokens": [TOK.decode([t]) for t in ids], "token_logprobs": token_logprobs, "top_logprobs": top, "text_offset": [0] * len(ids)}})
      Handler.seen.append(ids[:-1])
    out = json.dumps({"id": "x", "object": "text_completion", "model": body["model"], "choices": choices}).encode()
    self.send_response(200)
    self.send_header("Content-Type", "application/json")
    self.send_header("Content-Length", str(len(out)))
    self.end_headers()
    self.wfile.write(out)


Handler.seen = []


def main():
  server = HTTPServer(("127.0.0.1", 0), Handler)
  threading.Thread(target=server.serve_forever, daemon=True).start()
  from lm_eval.api.instance import Instance
  from lm_eval.models.openai_completions import LocalCompletionsAPI
  # As lm-eval's CLI reads --model_args (lm_eval/utils.py simple_parse_args_string: "True"/"False" become booleans).
  from lm_eval.utils import simple_parse_args_string
  extra = simple_parse_args_string(sys.argv[2])
  model = LocalCompletionsAPI(base_url=f"http://127.0.0.1:{server.server_port}/v1/completions", model="m", tokenizer=sys.argv[1], num_concurrent=1, max_retries=1, **extra)
  bos = TOK.bos_token_id
  if len(sys.argv) > 3 and sys.argv[3] == "rolling":
    # The heldout task: a chat rendered with the chat template (which starts with the BOS text), scored whole; the
    # fixed task files strip that leading BOS text (jobs/eval.ts taskUtilsPy _no_bos) when sys.argv[4] == "strip".
    text = TOK.apply_chat_template([{"role": "user", "content": "hi there"}, {"role": "assistant", "content": "hello"}], tokenize=False)
    if len(sys.argv) > 4 and sys.argv[4] == "strip" and text.startswith(TOK.bos_token):
      text = text[len(TOK.bos_token):]
    req = Instance(request_type="loglikelihood_rolling", doc={}, arguments=(text,), idx=0)
    got = model.loglikelihood_rolling([req], disable_tqdm=True)[0]
    body = TOK(text, add_special_tokens=False).input_ids
    body = body[1:] if body and body[0] == bos else body
    want = sum(lp(k) for k in range(1, 1 + len(body)))
  else:
    context, continuation = "Question: What is the capital of France? Answer:", " Paris"
    req = Instance(request_type="loglikelihood", doc={}, arguments=(context, continuation), idx=0)
    got = model.loglikelihood([req], disable_tqdm=True)[0][0]
    # The truth: [BOS] + context, then the continuation's tokens, scored at their positions in that sequence.
    ctx = TOK(context, add_special_tokens=True).input_ids
    whole = TOK(context + continuation, add_special_tokens=True).input_ids
    want = sum(lp(k) for k in range(len(ctx), len(whole)))
  sent = Handler.seen[-1]
  print(json.dumps({
      "model_args": sys.argv[2],
      "mode": sys.argv[3:],
      "sent_tokens": len(sent),
      "bos_at_start": sum(1 for t in sent[:3] if t == bos),
      "lm_eval_sum": round(got, 6),
      "true_sum": round(want, 6),
      "right": abs(got - want) < 1e-9,
  }))
  server.shutdown()


if __name__ == "__main__":
  main()
