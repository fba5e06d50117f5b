"""The table pipeline: frame sources, table geometry and seats, card tracking, the game follower
that feeds ``engine.Game``, and whole games rendered as video.

Data flows one way: ``sources`` -> detector -> ``tracker`` -> ``follower`` (-> engine) -> events.
Import the submodules directly; this package imports nothing heavy.
"""
