"""Data in the declared shape, served by the stand-in Hub, read by the real clients (datasets 5.0.1 and
huggingface_hub 1.26.0 of the MaxText image): a config or split the lock does not have fails in datasets' own words."""
import os
import shutil
import tempfile
import unittest

from rehearse_cpu import data, fake_hub


class DataHubTest(unittest.TestCase):
  @classmethod
  def setUpClass(cls):
    cls.tmp = tempfile.mkdtemp()
    root = os.path.join(cls.tmp, "ds")
    data.write_dataset(root, {"default": {"splits": ["train", "test"], "columns": {"messages": "messages", "score": "number"}}}, rows=8)
    cls.hub = fake_hub.Hub({("datasets", "acme/chat"): root})
    os.environ["HF_ENDPOINT"] = cls.hub.url
    os.environ["HF_HOME"] = os.path.join(cls.tmp, "hf")

  @classmethod
  def tearDownClass(cls):
    cls.hub.close()
    shutil.rmtree(cls.tmp)

  def load(self, **kw):
    import datasets
    return datasets.load_dataset("acme/chat", **kw)

  def test_columns_keep_their_declared_types(self):
    ds = self.load(split="train")
    self.assertEqual(len(ds), 8)
    self.assertEqual(ds[0]["messages"][0]["role"], "user")
    self.assertIsInstance(ds[0]["score"], int)

  def test_a_split_that_does_not_exist_fails_naming_it(self):
    with self.assertRaisesRegex(Exception, "test_sft"):
      self.load(split="test_sft")

  def test_a_config_that_does_not_exist_fails_naming_it(self):
    with self.assertRaisesRegex(Exception, "main"):
      self.load(name="main", split="train")

  def test_an_unknown_repository_is_not_found(self):
    import datasets
    with self.assertRaises(Exception):
      datasets.load_dataset("acme/other", split="train")


if __name__ == "__main__":
  unittest.main()
