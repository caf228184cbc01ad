"""The evaluation's parameters fitted to data: Texel tuning of the hand-written terms and
the screening of candidate terms (texel, texel_tune, texel_screen), labelling positions
with an engine's search or static scores (label_positions, label_static), the network's
model and trainer (nnue, nnue_train), and the win/draw/loss model fitted to the engine's
own games (wdl_fit)."""
