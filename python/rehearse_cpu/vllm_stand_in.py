"""A loopback stand-in for `vllm serve <model> --served-model-name N --port P --tokenizer T --hf-overrides JSON`:
serves GET /health and POST /v1/completions (the OpenAI completions shape vLLM serves: `prompt` a string, a list of
strings or of token ids; `max_tokens`, `temperature`, `stop`, `echo`, `logprobs`; answer `choices[i].text`,
`choices[i].logprobs.{tokens, token_logprobs, top_logprobs, text_offset}`, read in vllm-project/vllm
entrypoints/openai/completion/protocol.py and lm-eval 0.4.12 lm_eval/models/openai_completions.py) from a transformers
model loaded with the class the hf_overrides name, on CPU. Like vLLM's completions endpoint, a text prompt is tokenized
WITH the tokenizer's special tokens (BOS where the tokenizer adds one)."""
import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch
import transformers


def parse():
  ap = argparse.ArgumentParser()
  ap.add_argument("cmd")
  ap.add_argument("model")
  ap.add_argument("--served-model-name", default=None)
  ap.add_argument("--port", type=int, default=8000)
  ap.add_argument("--tokenizer", default=None)
  ap.add_argument("--hf-overrides", default="{}")
  args, rest = ap.parse_known_args()
  return args, rest


def load(args):
  overrides = json.loads(args.hf_overrides or "{}")
  config = transformers.AutoConfig.from_pretrained(args.model)
  for k, v in overrides.items():
    setattr(config, k, v)
  arch = (overrides.get("architectures") or config.architectures or [None])[0]
  cls = getattr(transformers, arch, None) if arch else None
  if cls is None:
    sys.exit(f"vllm stand-in: transformers has no class {arch!r} (the architecture the serve stack asks vLLM for)")
  model = cls.from_pretrained(args.model, config=config, dtype=torch.float32).eval()
  tok = transformers.AutoTokenizer.from_pretrained(args.tokenizer or args.model)
  print(f"vllm stand-in: {args.model} as {type(model).__name__} on CPU", flush=True)
  return model, tok


def complete(model, tok, body):
  prompts = body.get("prompt")
  if isinstance(prompts, str) or (isinstance(prompts, list) and prompts and isinstance(prompts[0], int)):
    prompts = [prompts]
  max_tokens = int(body.get("max_tokens") or 16)
  echo = bool(body.get("echo"))
  want_lp = body.get("logprobs") is not None
  stops = body.get("stop") or []
  stops = [stops] if isinstance(stops, str) else stops
  choices = []
  for i, p in enumerate(prompts):
    ids = p if isinstance(p, list) else tok(p, add_special_tokens=True)["input_ids"]
    x = torch.tensor([ids])
    out_ids = []
    with torch.no_grad():
      logits = model(x).logits[0]
      lps = torch.log_softmax(logits.float(), -1)
      cur = x
      for _ in range(max_tokens):
        nxt = int(model(cur).logits[0, -1].argmax())
        out_ids.append(nxt)
        cur = torch.cat([cur, torch.tensor([[nxt]])], 1)
        text = tok.decode(out_ids, skip_special_tokens=True)
        if nxt == tok.eos_token_id or any(s in text for s in stops):
          break
    text = tok.decode(out_ids, skip_special_tokens=True)
    for s in stops:
      if s in text:
        text = text[: text.index(s)]
    choice = {"index": i, "text": text, "finish_reason": "length"}
    if want_lp:
      # with echo, vLLM returns the prompt's tokens and then the generated ones, each with its log-probability
      prompt_ids = list(ids)
      full = prompt_ids + out_ids
      with torch.no_grad():
        lps = torch.log_softmax(model(torch.tensor([full])).logits[0].float(), -1)
      ids = full
      toks = [tok.convert_ids_to_tokens(t) for t in ids]
      token_lps = [None] + [float(lps[j - 1, ids[j]]) for j in range(1, len(ids))]
      tops = [None] + [{toks[j]: token_lps[j]} for j in range(1, len(ids))]
      offsets, pos = [], 0
      for t in ids:
        offsets.append(pos)
        pos += len(tok.decode([t]))
      choice["logprobs"] = {"tokens": toks if echo else [], "token_logprobs": token_lps if echo else [],
                            "top_logprobs": tops if echo else [], "text_offset": offsets if echo else []}
      if echo:
        choice["text"] = tok.decode(prompt_ids) + text
    choices.append(choice)
  return {"id": "cmpl-rehearse", "object": "text_completion", "model": body.get("model"), "choices": choices,
          "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


def main():
  args, _ = parse()
  model, tok = load(args)

  class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
      pass

    def _send(self, code, body):
      data = json.dumps(body).encode()
      self.send_response(code)
      self.send_header("Content-Type", "application/json")
      self.send_header("Content-Length", str(len(data)))
      self.end_headers()
      self.wfile.write(data)

    def do_GET(self):
      if self.path.startswith("/health"):
        return self._send(200, {})
      if self.path.startswith("/v1/models"):
        return self._send(200, {"data": [{"id": args.served_model_name or args.model, "object": "model"}]})
      self._send(404, {"error": "not served"})

    def do_POST(self):
      body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
      if not self.path.startswith("/v1/completions"):
        return self._send(404, {"error": "not served"})
      try:
        self._send(200, complete(model, tok, body))
      except Exception as e:  # the error shape vLLM answers with
        self._send(400, {"error": {"message": str(e)[:500], "type": "BadRequestError"}})

  ThreadingHTTPServer(("127.0.0.1", args.port), H).serve_forever()


if __name__ == "__main__":
  main()
