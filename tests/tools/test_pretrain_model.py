"""`tools/_pretrain_model.py`: pretrain --family's masking rate, with enough masked positions for it."""

import argparse
import importlib.util
import os

import pytest

from keras_bert.training.family_defaults import pretraining_defaults
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def masking():
    spec = importlib.util.spec_from_file_location("_pretrain_model", os.path.join(ROOT, "tools", "_pretrain_model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.masking


def flags(**given):
    values = dict(next_sentence=None, masked_lm_prob=None, max_predictions_per_seq=None, seq_length=64,
                  phase2_seq_length=0, phase2_fraction=None, phase2_max_predictions_per_seq=None)
    return argparse.Namespace(**dict(values, **given))


def test_a_family_masks_its_share_with_positions_enough_for_it(masking):
    args = flags()
    masking(args, pretraining_defaults("modernbert"))  # 30 % of 64 tokens: 20 positions, not BERT's 10
    assert (args.next_sentence, args.masked_lm_prob, args.max_predictions_per_seq) == ("off", 0.3, 20)
    args = flags(masked_lm_prob=0.1, max_predictions_per_seq=7, phase2_seq_length=128)
    masking(args, pretraining_defaults("modernbert"))  # what the user gave stays; phase 2 in the same share
    assert (args.masked_lm_prob, args.max_predictions_per_seq, args.phase2_max_predictions_per_seq) == (0.1, 7, 14)
    args = flags(next_sentence="on", masked_lm_prob=0.15)
    masking(args, None)  # no --family: BERT's 10 positions, as before
    assert (args.next_sentence, args.masked_lm_prob, args.max_predictions_per_seq) == ("on", 0.15, 10)
