from phenorules.core.memo import Remembered


def test_a_key_is_read_once_and_all_are_forgotten_past_the_limit():
    asked = []
    memo = Remembered(lambda key: asked.append(key) or key.upper(), limit=2)
    assert [memo["a"], memo["a"], memo["b"]] == ["A", "A", "B"]
    assert asked == ["a", "b"]
    assert memo["c"] == "C" and dict(memo) == {"c": "C"}  # full: a and b forgotten
    assert memo["a"] == "A" and asked == ["a", "b", "c", "a"]
