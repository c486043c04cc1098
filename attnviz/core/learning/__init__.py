"""What training learns from and records, torch-free where it can be: generated tasks whose right alignment
is known, a training's history with its learned rule, and BLEU."""
