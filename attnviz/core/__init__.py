"""The Qt-free core: attention primitives, positional encoding, kernel regression, devices.

Nothing in this package imports Qt; the GUI receives numpy arrays built from what it returns.
"""

from attnviz.core.attention import (
    AdditiveAttention,
    Attended,
    DotProductAttention,
    MultiHeadAttention,
)
from attnviz.core.device import DeviceUnavailableError, available_devices, pick_device
from attnviz.core.kernel_regression import (
    KERNELS,
    NadarayaWatsonRegression,
    fit_parametric,
    kernel_weights,
    nadaraya_watson,
    synthetic_regression_data,
)
from attnviz.core.masking import causal_mask, masked_softmax, padding_mask
from attnviz.core.positional import PositionalEncoding, positional_encoding_table

__all__ = [
    "KERNELS",
    "AdditiveAttention",
    "Attended",
    "DeviceUnavailableError",
    "DotProductAttention",
    "MultiHeadAttention",
    "NadarayaWatsonRegression",
    "PositionalEncoding",
    "available_devices",
    "causal_mask",
    "fit_parametric",
    "kernel_weights",
    "masked_softmax",
    "nadaraya_watson",
    "padding_mask",
    "pick_device",
    "positional_encoding_table",
    "synthetic_regression_data",
]
