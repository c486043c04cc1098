"""attnviz's checkpoint files (safetensors, rebuilt from the metadata beside the weights: :mod:`.checkpoint`), a
torch-free first look at one (:mod:`.header`), and opening any model path — a checkpoint or a Hugging Face
folder — as one :class:`~attnviz.core.models.loaded.LoadedModel`."""
