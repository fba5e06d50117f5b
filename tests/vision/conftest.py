"""Fixtures shared by the vision tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import torch


def _scramble_batch_norms(model: torch.nn.Module, seed: int) -> None:
    """Gives every BatchNorm of ``model`` statistics and an affine part far from the identity, so a
    wrong fold shows in the outputs."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            n = module.num_features
            module.running_mean.copy_(torch.randn(n, generator=generator))
            module.running_var.copy_(torch.rand(n, generator=generator) * 2 + 0.1)
            module.weight.data.copy_(torch.randn(n, generator=generator))
            module.bias.data.copy_(torch.randn(n, generator=generator))


@pytest.fixture
def scramble_batch_norms() -> Callable[[torch.nn.Module, int], None]:
    """:func:`_scramble_batch_norms`, for tests of networks read with folded BatchNorms."""
    return _scramble_batch_norms
