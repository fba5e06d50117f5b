"""Benchmarks of the vision stages: dataset generation speed, whole rendered games through the table pipeline,
memory over hours of live play."""
