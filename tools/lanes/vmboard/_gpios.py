"""An RP2040 board's GPIOs for the VM lanes' ``board`` (board.use() imports this only for
a Pico build, so that no other build's lane holds its names): every GPn, numbered
(``gpio``: rp2pio's side-set pins are consecutive), and ``microcontroller.pin.GPIOn``,
where the Pico's profile finds its piezo's second pin."""


class Pins:
    """``microcontroller.pin``: the GPIOs by number."""


def name(board, Pin):
    import microcontroller

    microcontroller.pin = Pins()
    for n in range(29):
        if not hasattr(board, "GP%d" % n):
            setattr(board, "GP%d" % n, Pin(200 + n))
        getattr(board, "GP%d" % n).gpio = n
        setattr(microcontroller.pin, "GPIO%d" % n, getattr(board, "GP%d" % n))
