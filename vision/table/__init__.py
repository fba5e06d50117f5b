"""The table pipeline: frame sources, table geometry and seats, card tracking, the game decoder
that feeds ``engine.Game``, and whole games rendered as video.

Data flows one way: ``sources`` -> detector -> ``tracker`` -> ``decoder`` (-> engine) -> events.
Import the submodules directly; this package imports nothing heavy.
"""
