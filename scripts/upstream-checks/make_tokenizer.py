"""A tiny local tokenizer with Llama 3.1's BOS behaviour (issue 44): byte-level BPE made with `tokenizers`, special
tokens `<|begin_of_text|>` (BOS) and `<|end_of_text|>` (EOS), and a TemplateProcessing post-processor that puts BOS
before every encoded text, as meta-llama/Llama-3.1-8B's tokenizer.json does (Gemma's adds `<bos>` the same way,
`add_bos_token: true`). Saved with transformers' PreTrainedTokenizerFast.save_pretrained.

Usage: python make_tokenizer.py <out_dir> [vocab_size]
"""
import sys

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import PreTrainedTokenizerFast

CORPUS = [
    "The capital of France is Paris. The capital of Italy is Rome.",
    "Question: What is two plus two? Answer: four.",
    "A B C D are the choices; the answer is B.",
    "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May.",
    "User: hello there. Assistant: hello, how can I help you today?",
] * 20


def main():
  out = sys.argv[1]
  vocab = int(sys.argv[2]) if len(sys.argv) > 2 else 512
  bos, eos = "<|begin_of_text|>", "<|end_of_text|>"
  tok = Tokenizer(models.BPE())
  tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
  tok.decoder = decoders.ByteLevel()
  trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=[bos, eos], initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
  tok.train_from_iterator(CORPUS, trainer)
  tok.post_processor = processors.TemplateProcessing(
      single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, tok.token_to_id(bos))]
  )
  fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=bos, eos_token=eos, pad_token=eos)
  fast.chat_template = (
      "{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n"
      "{{ m['content'] }}<|eot_id|>{% endfor %}{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}"
  )
  fast.save_pretrained(out)
  print(out)


if __name__ == "__main__":
  main()
